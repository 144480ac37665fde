// Bench 4: 1 MiB and 10 MiB tool results through every path: time per call and the peak
// RSS (VmHWM, reset before each size) of the proxy processes in between. The 10 MiB text
// makes a reply of 10 MiB plus its envelope, over a client's 10 MiB message cap: a server's
// messages may be twice that (src/proxy/common/messageLimits.ts). The benchmark's SDK stdio
// clients read up to 64 MiB a message (lib/paths.mjs), or their 10 MiB default would fail
// the direct baseline itself; a peer's own stdio client keeps its default.
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

await runBench('bigResults', opts.deadlineMs, async (procs) => {
  const shared = new Shared(procs);
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
    for (const s of started) await s.p.close();
    const result = {
      bench: 'bigResults',
      env: environment(),
      options: opts,
      sizes: SIZES,
      guardBlocks: shared.guardBlocks(),
      rows,
    };
    saveResults('bigResults', result);
    process.stdout.write(
      `${table(rows, ['id', '1MiBMs', '1MiBVsSdkStdio', '1MiBPeakRssMiB', '1MiBOk', '10MiBMs', '10MiBVsSdkStdio', '10MiBPeakRssMiB', '10MiBOk', 'error'])}\n`,
    );
  } finally {
    shared.cleanup();
  }
});
