// Bench 6: the main process's LogTail (src/main/logs/logTail.ts, bundled with esbuild into a temp
// file) following the shared proxy log while 4 writer processes append 100k entries at a
// steady rate, one appendFileSync per entry as the proxy logger does. Measured: delivery
// latency (write -> onEntry, both stamped with performance.timeOrigin + now()), p50/p99/max,
// and entries lost, duplicated or out of order per writer (must be 0). Then a second phase of
// isolated entries (150 ms apart) shows the latency of a lone line.
//   node bench/logTail.mjs [--quick] [--entries 100000] [--writers 4] [--rate 10000] [--isolated 60]
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  BENCH,
  ROOT,
  environment,
  median,
  options,
  percentile,
  round,
  runBench,
  saveResults,
  sleep,
  table,
} from './lib/common.mjs';

const opts = options(
  { entries: 100_000, writers: 4, rate: 10_000, isolated: 60, deadlineMs: 180_000 },
  { entries: 10_000, rate: 5_000, isolated: 20, deadlineMs: 90_000 },
);
const TARGET_P99_MS = 250;
const TICK_MS = 10;
const ISOLATED_GAP_MS = 150;

await runBench('logTail', opts.deadlineMs, async (procs) => {
  const dir = mkdtempSync(join(tmpdir(), 'qiming-bench-logtail-'));
  try {
    const bundle = join(dir, 'logTail.bundle.mjs');
    await build({
      entryPoints: [join(ROOT, 'src/main/logs/logTail.ts')],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
    });
    /** @type {typeof import('../src/main/logs/logTail.js')} */
    const { LogTail } = await import(pathToFileURL(bundle).href);
    const logFile = join(dir, 'logs', 'mcp-proxy.log');
    const perWriter = Math.ceil(opts.entries / opts.writers);
    const perTick = Math.max(1, Math.round((opts.rate / opts.writers) * (TICK_MS / 1000)));
    /** @type {number[]} */
    const latencies = [];
    const seen = Array.from({ length: opts.writers }, () => new Map());
    const isolatedId = opts.writers;
    /** @type {number[]} */
    const isolatedLat = [];
    const outOfOrder = new Array(opts.writers).fill(0);
    const last = new Array(opts.writers).fill(-1);
    let delivered = 0;
    let foreign = 0;
    /** @type {string[]} */
    const errors = [];
    const tailer = new LogTail({
      path: logFile,
      startAt: 'start',
      onEntry: (e) => {
        const at = performance.timeOrigin + performance.now();
        const m = /^w(\d+) seq=(\d+) t=([\d.]+)/.exec(e.message);
        if (!m) return void foreign++;
        const w = Number(m[1]);
        const seq = Number(m[2]);
        if (w === isolatedId) return void isolatedLat.push(at - Number(m[3]));
        latencies.push(at - Number(m[3]));
        seen[w].set(seq, (seen[w].get(seq) ?? 0) + 1);
        if (seq < last[w]) outOfOrder[w]++;
        last[w] = seq;
        delivered++;
      },
      onError: (err) => errors.push(err.message),
    });
    await tailer.start();
    const writers = [];
    const startAt = Date.now() + 2000; // every writer is up by then, even on a loaded machine
    let t0;
    for (let w = 0; w < opts.writers; w++) {
      const child = procs.spawn(
        process.execPath,
        [
          join(BENCH, 'fixtures', 'logWriter.mjs'),
          logFile,
          String(w),
          String(perWriter),
          String(perTick),
          String(TICK_MS),
          String(startAt),
        ],
        {},
        `writer ${w}`,
      );
      writers.push(
        new Promise((resolve) =>
          child.exitInfo ? resolve(child.exitInfo) : child.once('exit', (code) => resolve(code)),
        ),
      );
    }
    await sleep(startAt - Date.now());
    t0 = performance.now();
    const codes = await Promise.all(writers);
    const writeMs = performance.now() - t0;
    const expected = perWriter * opts.writers;
    const deadline = Date.now() + 10_000;
    while (delivered < expected && Date.now() < deadline) await sleep(20);
    await sleep(300); // anything delivered twice would show up here
    // Second phase: single entries 150 ms apart. Each waits for the next header or the tail's
    // entry flush (100 ms: it may still get continuation lines), so this shows that floor.
    const iso = procs.spawn(
      process.execPath,
      [
        join(BENCH, 'fixtures', 'logWriter.mjs'),
        logFile,
        String(isolatedId),
        String(opts.isolated),
        '1',
        String(ISOLATED_GAP_MS),
        String(Date.now() + 1000),
      ],
      {},
      'isolated writer',
    );
    await new Promise((resolve) => (iso.exitInfo ? resolve(undefined) : iso.once('exit', resolve)));
    const isoDeadline = Date.now() + 5000;
    while (isolatedLat.length < opts.isolated && Date.now() < isoDeadline) await sleep(20);
    await tailer.stop();
    let lost = 0;
    let duplicated = 0;
    for (let w = 0; w < opts.writers; w++) {
      for (let i = 0; i < perWriter; i++) {
        const n = seen[w].get(i) ?? 0;
        if (n === 0) lost++;
        if (n > 1) duplicated += n - 1;
      }
    }
    const summary = {
      entries: expected,
      lines: expected + Math.floor(perWriter / 50) * opts.writers,
      writers: opts.writers,
      targetRatePerSec: opts.rate,
      actualRatePerSec: round(expected / (writeMs / 1000), 0),
      delivered,
      lost,
      duplicated,
      outOfOrder: outOfOrder.reduce((a, b) => a + b, 0),
      foreign,
      p50Ms: round(median(latencies), 2),
      p99Ms: round(percentile(latencies, 99), 2),
      maxMs: round(Math.max(...latencies), 2),
      writerExitCodes: codes,
      tailErrors: errors.slice(0, 5),
      isolatedEntries: opts.isolated,
      isolatedDelivered: isolatedLat.length,
      isolatedP50Ms: round(median(isolatedLat), 1),
      isolatedMaxMs: round(Math.max(...isolatedLat), 1),
      // p50 per tenth of the run, in delivery order: a backlog shows as a rising series.
      p50ByTenthMs: Array.from({ length: 10 }, (_, k) =>
        round(median(latencies.slice((k * latencies.length) / 10, ((k + 1) * latencies.length) / 10)), 1),
      ),
    };
    const targetMet = (summary.p99Ms ?? Infinity) <= TARGET_P99_MS && lost === 0 && duplicated === 0;
    saveResults('logTail', {
      bench: 'logTail',
      env: environment(),
      options: opts,
      targetP99Ms: TARGET_P99_MS,
      targetMet,
      summary,
    });
    process.stdout.write(
      `${table([summary], ['entries', 'lines', 'writers', 'actualRatePerSec', 'delivered', 'lost', 'duplicated', 'outOfOrder', 'p50Ms', 'p99Ms', 'maxMs'])}\n`,
    );
    process.stdout.write(
      `isolated entries (${ISOLATED_GAP_MS} ms apart): ${summary.isolatedDelivered}/${summary.isolatedEntries} delivered, p50 ${summary.isolatedP50Ms} ms, max ${summary.isolatedMaxMs} ms\n`,
    );
    process.stdout.write(`p50 by tenth of the run (ms): ${summary.p50ByTenthMs.join(', ')}\n`);
    process.stdout.write(
      `log tail p99 ${summary.p99Ms} ms, lost ${lost}, duplicated ${duplicated} (target p99 <= ${TARGET_P99_MS} ms, 0 lost): ${targetMet ? 'met' : 'MISSED'}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
