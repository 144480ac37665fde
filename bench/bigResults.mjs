// Bench 4: 1 MiB and 10 MiB tool results through every path: time per call and the peak
// RSS (VmHWM, reset before each size) of the proxy processes in between. The 10 MiB text
// makes a reply of 10 MiB plus its envelope, over a client's 10 MiB message cap: a server's
// messages may be twice that (src/proxy/common/messageLimits.ts). The benchmark's SDK stdio
// clients read up to 64 MiB a message (lib/paths.mjs), or their 10 MiB default would fail
// the direct baseline itself; a peer's own stdio client keeps its default. Our aggregates run
// with `maxResultBytes: "off"` here, so every path passes the whole result. Then the cut: a
// 2 MiB result through our stdio aggregation and the bridge's /mcp with the default cap
// (100,000 bytes), against the same call with the cap off, and the read of the whole back
// with resources/read.
//   node bench/bigResults.mjs [--quick] [--rounds 3] [--only a,b]
import { PATHS, Shared, selectPaths, startPath } from './lib/paths.mjs';
import {
  environment,
  median,
  memoryOf,
  now,
  options,
  resetPeak,
  round,
  runBench,
  saveResults,
  table,
  within,
} from './lib/common.mjs';

const opts = options({ rounds: 3, deadlineMs: 600_000 }, { rounds: 1, deadlineMs: 300_000 });
const MiB = 1024 * 1024;
const SIZES = [
  { label: '1 MiB', bytes: MiB },
  { label: '10 MiB', bytes: 10 * MiB },
];
const CALL_TIMEOUT_MS = 60_000;
const CUT_BYTES = 2 * MiB;
const CUT_PATHS = ['ours-stdio', 'ours-bridge-all'];
const DEFAULT_CAP = 100_000;

/**
 * @param {import('./lib/paths.mjs').BenchPath} p
 * @param {number} bytes
 */
async function bigCall(p, bytes) {
  const t0 = now();
  const r = /** @type {import('./lib/paths.mjs').ToolResult} */ (
    await p.client.callTool({ name: p.tools.blob, arguments: { bytes } }, undefined, { timeout: CALL_TIMEOUT_MS })
  );
  const ms = now() - t0;
  const len = r.content?.[0]?.text?.length;
  if (r.isError || len !== bytes)
    throw new Error(`wrong result: ${r.isError ? JSON.stringify(r.content).slice(0, 200) : `${len} bytes`}`);
  return ms;
}

/**
 * The 2 MiB call cut to the default cap, then the read of the whole: the time of each, checked.
 * @param {import('./lib/paths.mjs').BenchPath} p
 */
async function cutCall(p) {
  const t0 = now();
  const r = /** @type {import('./lib/paths.mjs').ToolResult} */ (
    await p.client.callTool({ name: p.tools.blob, arguments: { bytes: CUT_BYTES } }, undefined, {
      timeout: CALL_TIMEOUT_MS,
    })
  );
  const callMs = now() - t0;
  const bytes = Buffer.byteLength(JSON.stringify(r));
  const uri = /the uri "([^"]+)"/.exec(r.content?.at(-1)?.text ?? '')?.[1];
  if (bytes > DEFAULT_CAP || !uri) throw new Error(`not cut: ${bytes} bytes, ${JSON.stringify(r).slice(-300)}`);
  const t1 = now();
  const whole = await p.client.readResource({ uri }, { timeout: CALL_TIMEOUT_MS });
  const readMs = now() - t1;
  const text = /** @type {{ text?: string }[]} */ (whole.contents)[0]?.text;
  if (text?.length !== CUT_BYTES) throw new Error(`whole not read back: ${text?.length} characters`);
  return { callMs, readMs, bytes };
}

await runBench('bigResults', opts.deadlineMs, async (procs) => {
  const shared = new Shared(procs, { topLevel: { maxResultBytes: 'off' } });
  const capped = new Shared(procs);
  /** @type {Record<string, unknown>[]} */
  const cut = [];
  /** @typedef {{ ms: number[]; peakKiB: number; errors: string[] }} SizeRecord */
  /** @type {{ def: (typeof PATHS)[number]; p: import('./lib/paths.mjs').BenchPath; bySize: Map<number, SizeRecord> }[]} */
  const started = [];
  /** @type {Record<string, unknown>[]} */
  const rows = [];
  try {
    for (const def of selectPaths(opts.only)) {
      try {
        const p = await startPath(def.id, shared);
        started.push({ def, p, bySize: new Map(SIZES.map((s) => [s.bytes, { ms: [], peakKiB: 0, errors: [] }])) });
      } catch (/** @type {any} */ err) {
        rows.push({ id: def.id, path: def.label, error: String(err.message).split('\n')[0] });
      }
    }
    for (const size of SIZES) {
      for (let r = 0; r < opts.rounds; r++) {
        for (let k = 0; k < started.length; k++) {
          const s = started[(k + r) % started.length];
          const rec = /** @type {SizeRecord} */ (s.bySize.get(size.bytes));
          if (rec.errors.length >= 2) continue; // a path that failed twice is not retried
          for (const pid of s.p.proxyPids) resetPeak(pid);
          try {
            rec.ms.push(
              await within(CALL_TIMEOUT_MS + 5000, `${s.def.id} ${size.label}`, () => bigCall(s.p, size.bytes)),
            );
          } catch (/** @type {any} */ err) {
            rec.errors.push(String(err.message ?? err).split('\n')[0]);
          }
          const peak = s.p.proxyPids.reduce((/** @type {number} */ sum, pid) => sum + (memoryOf(pid)?.hwmKiB ?? 0), 0);
          rec.peakKiB = Math.max(rec.peakKiB, peak);
        }
        process.stderr.write(`${size.label} round ${r + 1}/${opts.rounds} done\n`);
      }
    }
    const base = started.find((s) => s.def.id === 'sdk-stdio');
    for (const def of PATHS) {
      const s = started.find((x) => x.def === def);
      if (!s) continue;
      /** @type {Record<string, unknown>} */
      const row = { id: def.id, path: def.label };
      for (const size of SIZES) {
        const rec = /** @type {SizeRecord} */ (s.bySize.get(size.bytes));
        const key = size.label.replace(' ', '');
        const ok = rec.ms.length > 0 && rec.errors.length === 0;
        row[`${key}Ms`] = rec.ms.length ? round(median(rec.ms), 1) : null;
        row[`${key}VsSdkStdio`] =
          rec.ms.length && base
            ? round(median(rec.ms) / median(/** @type {SizeRecord} */ (base.bySize.get(size.bytes)).ms), 2)
            : null;
        row[`${key}PeakRssMiB`] = s.p.proxyPids.length ? round(rec.peakKiB / 1024, 1) : null;
        row[`${key}Ok`] = ok
          ? 'yes'
          : `no (${rec.errors.length}/${rec.errors.length + rec.ms.length} failed: ${rec.errors[0]})`;
      }
      rows.push(row);
    }
    // The cut, interleaved with the same call passed whole on the path with the cap off.
    for (const id of CUT_PATHS) {
      const whole = started.find((s) => s.def.id === id);
      if (!whole) continue;
      const def = /** @type {(typeof PATHS)[number]} */ (PATHS.find((d) => d.id === id));
      /** @type {{ pass: number[]; call: number[]; read: number[]; bytes: number; peakKiB: number; errors: string[] }} */
      const rec = { pass: [], call: [], read: [], bytes: 0, peakKiB: 0, errors: [] };
      try {
        const p = await startPath(id, capped);
        for (let r = 0; r < opts.rounds; r++) {
          try {
            rec.pass.push(await within(CALL_TIMEOUT_MS + 5000, `${id} 2 MiB whole`, () => bigCall(whole.p, CUT_BYTES)));
            for (const pid of p.proxyPids) resetPeak(pid);
            const c = await within(2 * CALL_TIMEOUT_MS, `${id} 2 MiB cut`, () => cutCall(p));
            rec.call.push(c.callMs);
            rec.read.push(c.readMs);
            rec.bytes = c.bytes;
            const peak = p.proxyPids.reduce((/** @type {number} */ sum, pid) => sum + (memoryOf(pid)?.hwmKiB ?? 0), 0);
            rec.peakKiB = Math.max(rec.peakKiB, peak);
          } catch (/** @type {any} */ err) {
            rec.errors.push(String(err.message ?? err).split('\n')[0]);
          }
        }
        await p.close();
      } catch (/** @type {any} */ err) {
        rec.errors.push(String(err.message ?? err).split('\n')[0]);
      }
      cut.push({
        id,
        path: def.label,
        wholeMs: rec.pass.length ? round(median(rec.pass), 1) : null,
        cutMs: rec.call.length ? round(median(rec.call), 1) : null,
        cutBytes: rec.bytes || null,
        readWholeMs: rec.read.length ? round(median(rec.read), 1) : null,
        cutPeakRssMiB: rec.peakKiB ? round(rec.peakKiB / 1024, 1) : null,
        ok: rec.errors.length === 0 && rec.call.length > 0 ? 'yes' : `no (${rec.errors[0]})`,
      });
      process.stderr.write(`2 MiB cut on ${id} done\n`);
    }
    for (const s of started) await s.p.close();
    const result = {
      bench: 'bigResults',
      env: environment(),
      options: opts,
      sizes: SIZES,
      guardBlocks: [...shared.guardBlocks(), ...capped.guardBlocks()],
      rows,
      cut,
    };
    saveResults('bigResults', result);
    process.stdout.write(
      `${table(rows, ['id', '1MiBMs', '1MiBVsSdkStdio', '1MiBPeakRssMiB', '1MiBOk', '10MiBMs', '10MiBVsSdkStdio', '10MiBPeakRssMiB', '10MiBOk', 'error'])}\n`,
    );
    if (cut.length)
      process.stdout.write(
        `${table(cut, ['id', 'wholeMs', 'cutMs', 'cutBytes', 'readWholeMs', 'cutPeakRssMiB', 'ok'])}\n`,
      );
  } finally {
    shared.cleanup();
    capped.cleanup();
  }
});
