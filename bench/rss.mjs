// Bench 7: resident memory of the proxy processes, idle and under load. Each path is started
// and warmed up (200 calls); idle RSS is read after 2 s without traffic; then 32 calls are
// kept in flight for a few seconds while VmRSS is sampled every 50 ms, and VmHWM (reset just
// before) gives the peak. Paths are loaded one at a time, in interleaved rounds.
//   node bench/rss.mjs [--quick] [--seconds 5] [--rounds 2] [--only a,b]
import { PATHS, Shared, startPath } from './lib/paths.mjs';
import {
  environment,
  memoryOf,
  now,
  options,
  resetPeak,
  round,
  runBench,
  saveResults,
  sleep,
  table,
  within,
} from './lib/common.mjs';

const DEFAULT =
  'ours-stdio,ours-bridge-id,ours-acp-chain,ours-convert,supergateway-http,supergateway-sse,mcp-proxy,mcp-hub';
const opts = options(
  { seconds: 5, rounds: 2, only: DEFAULT, deadlineMs: 300_000 },
  { seconds: 2, rounds: 1, deadlineMs: 150_000 },
);
const ARGS = { text: 'hello from the benchmark' };
const CONCURRENCY = 32;
/** @param {number | undefined} kib (undefined: not sampled, gives null) */
const mib = (kib) => round(/** @type {number} */ (kib) / 1024, 1);

/**
 * @param {import('./lib/paths.mjs').BenchPath} p
 * @param {number} seconds
 */
async function load(p, seconds) {
  const end = now() + seconds * 1000;
  let calls = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (now() < end) {
        await p.client
          .callTool({ name: p.tools.echo, arguments: ARGS }, undefined, { timeout: 30_000 })
          .catch(() => undefined);
        calls++;
      }
    }),
  );
  return calls;
}

await runBench('rss', opts.deadlineMs, async (procs) => {
  const shared = new Shared(procs);
  /** @type {{ def: (typeof PATHS)[number]; p: import('./lib/paths.mjs').BenchPath; idle: Map<number | undefined, number>; loadMax: Map<number | undefined, number>; hwm: Map<number | undefined, number>; calls: number }[]} */
  const started = [];
  /** @type {Record<string, unknown>[]} */
  const rows = [];
  try {
    const want = String(opts.only).split(',');
    for (const def of PATHS.filter((p) => want.includes(p.id))) {
      try {
        const p = await startPath(def.id, shared);
        for (let i = 0; i < 200; i++) await p.client.callTool({ name: p.tools.echo, arguments: ARGS });
        started.push({ def, p, idle: new Map(), loadMax: new Map(), hwm: new Map(), calls: 0 });
      } catch (/** @type {any} */ err) {
        rows.push({ id: def.id, error: String(err.message).split('\n')[0] });
      }
    }
    await sleep(2000);
    for (const s of started) for (const pid of s.p.proxyPids) s.idle.set(pid, memoryOf(pid)?.rssKiB ?? 0);
    for (let r = 0; r < opts.rounds; r++) {
      for (let k = 0; k < started.length; k++) {
        const s = started[(k + r) % started.length];
        for (const pid of s.p.proxyPids) resetPeak(pid);
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            for (const pid of s.p.proxyPids)
              s.loadMax.set(pid, Math.max(s.loadMax.get(pid) ?? 0, memoryOf(pid)?.rssKiB ?? 0));
            await sleep(50);
          }
        })();
        s.calls += await within(opts.seconds * 1000 + 60_000, `${s.def.id} load`, () => load(s.p, opts.seconds));
        sampling = false;
        await sampler;
        for (const pid of s.p.proxyPids) s.hwm.set(pid, Math.max(s.hwm.get(pid) ?? 0, memoryOf(pid)?.hwmKiB ?? 0));
      }
      process.stderr.write(`rss round ${r + 1}/${opts.rounds} done\n`);
    }
    for (const s of started) {
      s.p.proxyPids.forEach((pid, i) => {
        const role =
          s.def.id === 'ours-acp-chain'
            ? i === 0
              ? 'stdio proxy'
              : 'bridge'
            : s.def.id.startsWith('ours-bridge')
              ? 'bridge'
              : 'proxy';
        rows.push({
          id: s.def.id,
          process: role,
          idleRssMiB: mib(s.idle.get(pid)),
          loadRssMaxMiB: mib(s.loadMax.get(pid)),
          loadPeakHwmMiB: mib(s.hwm.get(pid)),
          callsPerSecUnderLoad: round(s.calls / (opts.seconds * opts.rounds), 0),
        });
      });
    }
    for (const s of started) await s.p.close();
    saveResults('rss', { bench: 'rss', env: environment(), options: opts, guardBlocks: shared.guardBlocks(), rows });
    process.stdout.write(
      `${table(rows, ['id', 'process', 'idleRssMiB', 'loadRssMaxMiB', 'loadPeakHwmMiB', 'callsPerSecUnderLoad', 'error'])}\n`,
    );
  } finally {
    shared.cleanup();
  }
});
