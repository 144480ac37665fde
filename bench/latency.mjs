// Bench 1: tools/call latency (p50/p99 of sequential calls after a warm-up) and throughput
// (calls/s with 32 in flight for a fixed time) through every path to the same small SDK echo server.
// Paths are started once, then measured in interleaved round-robin batches (the order
// rotates every round), so machine noise hits every path alike; ratios are against the
// direct SDK stdio baseline of the same run.
// With QIMING_PROXY_CLI_BEFORE (another build), its before-* paths run in the same rounds, and
// p50VsBefore is each of ours' per-round p50 against its before-* twin.
//   node bench/latency.mjs [--quick] [--calls 2000] [--warmup 200] [--rounds 10]
//                          [--tput-seconds 2] [--tput-rounds 3] [--concurrency 32] [--only a,b]
import { PATHS, Shared, selectPaths, startPath } from './lib/paths.mjs';
import {
  cpuMs,
  environment,
  median,
  now,
  options,
  percentile,
  round,
  runBench,
  saveResults,
  table,
  within,
} from './lib/common.mjs';

const opts = options(
  { calls: 2000, warmup: 200, rounds: 10, tputSeconds: 2, tputRounds: 3, concurrency: 32, deadlineMs: 600_000 },
  { calls: 200, warmup: 50, rounds: 4, tputSeconds: 1, tputRounds: 2, deadlineMs: 240_000 },
);
const CALL_TIMEOUT_MS = 30_000;
const ARGS = { text: 'hello from the benchmark' };

/** @typedef {import('./lib/paths.mjs').BenchPath} BenchPath */
/** @typedef {import('./lib/paths.mjs').ToolResult} ToolResult */

/**
 * @param {BenchPath} p
 * @param {number} n
 * @param {number[]} sink
 */
async function sequential(p, n, sink) {
  for (let i = 0; i < n; i++) {
    const t0 = now();
    const r = /** @type {ToolResult} */ (
      await p.client.callTool({ name: p.tools.echo, arguments: ARGS }, undefined, { timeout: CALL_TIMEOUT_MS })
    );
    sink.push(now() - t0);
    if (r.isError || r.content?.[0]?.text !== ARGS.text)
      throw new Error(`${p.id}: unexpected result ${JSON.stringify(r).slice(0, 200)}`);
  }
}

/**
 * Keeps `concurrency` calls in flight for `seconds`; calls/s over all calls completed.
 * @param {BenchPath} p
 * @param {number} seconds
 * @param {number} concurrency
 */
async function throughput(p, seconds, concurrency) {
  let done = 0;
  let failures = 0;
  const t0 = now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (now() < end) {
        const r = await p.client
          .callTool({ name: p.tools.echo, arguments: ARGS }, undefined, { timeout: CALL_TIMEOUT_MS })
          .catch(() => undefined);
        if (!r || r.isError) failures++;
        else done++;
      }
    }),
  );
  return { callsPerSec: done / ((now() - t0) / 1000), failures };
}

await runBench('latency', opts.deadlineMs, async (procs) => {
  const shared = new Shared(procs);
  /** @type {{ def: (typeof PATHS)[number]; p: BenchPath; lat: number[]; roundP50: number[]; tput: number[]; failures: number; cpu: number; error?: string }[]} */
  const started = [];
  /** @type {Record<string, string>} */
  const failed = {};
  try {
    for (const def of selectPaths(opts.only)) {
      try {
        const p = await startPath(def.id, shared);
        /** @type {number[]} */
        const lat = [];
        await within(120_000, `${def.id} warm-up`, () => sequential(p, opts.warmup, lat));
        started.push({ def, p, lat: [], roundP50: [], tput: [], failures: 0, cpu: 0 });
        process.stderr.write(`started ${def.id} (warm-up p50 ${round(median(lat), 3)} ms)\n`);
      } catch (/** @type {any} */ err) {
        failed[def.id] = String(err.message ?? err).split('\n')[0];
        process.stderr.write(`${def.id} failed to start: ${err.message}\n`);
      }
    }
    const perRound = Math.ceil(opts.calls / opts.rounds);
    for (let r = 0; r < opts.rounds; r++) {
      for (let k = 0; k < started.length; k++) {
        const s = started[(k + r) % started.length];
        if (s.error) continue;
        /** @type {number[]} */
        const batch = [];
        const cpu0 = s.p.proxyPids.reduce((/** @type {number} */ sum, pid) => sum + cpuMs(pid), 0);
        try {
          await within(120_000, `${s.def.id} batch`, () => sequential(s.p, perRound, batch));
        } catch (/** @type {any} */ err) {
          s.error = String(err.message ?? err);
        }
        s.cpu += s.p.proxyPids.reduce((/** @type {number} */ sum, pid) => sum + cpuMs(pid), 0) - cpu0;
        s.lat.push(...batch);
        s.roundP50.push(median(batch));
      }
      process.stderr.write(`latency round ${r + 1}/${opts.rounds} done\n`);
    }
    for (let r = 0; r < opts.tputRounds; r++) {
      for (let k = 0; k < started.length; k++) {
        const s = started[(k + r) % started.length];
        if (s.error) continue;
        try {
          const t = await within(180_000, `${s.def.id} throughput`, () =>
            throughput(s.p, opts.tputSeconds, opts.concurrency),
          );
          s.tput.push(t.callsPerSec);
          s.failures += t.failures;
        } catch (/** @type {any} */ err) {
          s.error = String(err.message ?? err);
        }
      }
      process.stderr.write(`throughput round ${r + 1}/${opts.tputRounds} done\n`);
    }
    const base = started.find((s) => s.def.id === 'sdk-stdio');
    const baseHttp = started.find((s) => s.def.id === 'sdk-http');
    /** @type {Record<string, unknown>[]} */
    const rows = [];
    for (const def of PATHS) {
      const s = started.find((x) => x.def === def);
      if (!s) {
        if (def.id in failed) rows.push({ id: def.id, path: def.label, error: failed[def.id] });
        continue;
      }
      // Ratio of medians of per-round p50s: each round's figures were measured minutes apart at most.
      // The same path run by QIMING_PROXY_CLI_BEFORE, measured in the same rounds.
      const before = def.id.startsWith('ours-')
        ? started.find((x) => x.def.id === def.id.replace('ours-', 'before-'))
        : undefined;
      /** @param {(typeof started)[number] | undefined} b */
      const ratioTo = (b) => (b ? round(median(s.roundP50.map((v, i) => v / b.roundP50[i])), 2) : null);
      rows.push({
        id: def.id,
        path: def.label,
        calls: s.lat.length,
        p50Ms: round(percentile(s.lat, 50), 3),
        p99Ms: round(percentile(s.lat, 99), 3),
        p50VsSdkStdio: ratioTo(base),
        p50VsSdkHttp: ratioTo(baseHttp),
        ...(before ? { p50VsBefore: ratioTo(before) } : {}),
        proxyCpuUsPerCall: s.p.proxyPids.length ? round((s.cpu * 1000) / s.lat.length, 0) : null,
        callsPerSec: round(median(s.tput), 0),
        tputVsSdkStdio: base && s.tput.length ? round(median(s.tput) / median(base.tput), 2) : null,
        ...(before && s.tput.length && before.tput.length
          ? { tputVsBefore: round(median(s.tput) / median(before.tput), 2) }
          : {}),
        failedCalls: s.failures,
        ...(s.error ? { error: s.error.split('\n')[0] } : {}),
      });
    }
    for (const s of started) await s.p.close();
    const result = { bench: 'latency', env: environment(), options: opts, guardBlocks: shared.guardBlocks(), rows };
    saveResults('latency', result);
    process.stdout.write(
      `${table(rows, ['id', 'calls', 'p50Ms', 'p99Ms', 'p50VsSdkStdio', 'p50VsSdkHttp', 'p50VsBefore', 'proxyCpuUsPerCall', 'callsPerSec', 'tputVsSdkStdio', 'tputVsBefore', 'failedCalls', 'error'])}\n`,
    );
    process.stdout.write(`loopback guard refusals: ${result.guardBlocks.length}\n`);
  } finally {
    shared.cleanup();
  }
});
