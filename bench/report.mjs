// Renders bench/results/*.json (the last run of each bench) as the markdown tables and the
// target verdicts used in docs/BENCHMARKS.md.
//   node bench/report.mjs [--quick]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH, table } from './lib/common.mjs';

const quick = process.argv.includes('--quick');
/**
 * A results file as the benches write it (JSON, read loosely: each bench has its own fields).
 * @typedef {{ rows: Record<string, any>[]; runs: Record<string, any>[]; [field: string]: any }} Results
 */
/**
 * @param {string} name
 * @returns {Results | undefined}
 */
function load(name) {
  const file = join(BENCH, 'results', `${name}${quick ? '.quick' : ''}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}
/** @type {string[]} */
const out = [];
const say = (s = '') => out.push(s);
/** @type {{ target: string; goal: string; measured: string; met: string }[]} */
const verdicts = [];
/**
 * @param {string} what
 * @param {string} target
 * @param {string} measured
 * @param {boolean} met
 */
const verdict = (what, target, measured, met) =>
  verdicts.push({ target: what, goal: target, measured, met: met ? 'met' : '**missed**' });

const lat = load('latency');
const first = lat ?? load('readiness') ?? load('stop');
if (first) {
  const e = first.env;
  say(
    `- Machine: ${e.machine.nproc} cores (nproc), ${e.machine.cpuModel}, ${e.machine.memoryGiB} GiB, Linux ${e.machine.kernel}; node ${e.node}; load average (1/5/15 min) ${e.loadAverage?.join(' / ') ?? 'n/a'}, other sessions sharing the machine`,
  );
  say(`- Date: ${e.date}`);
  say(
    `- Packages: ${Object.entries(e.packages)
      .map(([k, v]) => `${k} ${v}`)
      .join('; ')}`,
  );
  say();
}

if (lat) {
  say(
    `### 1. tools/call latency and throughput (${lat.options.calls} sequential calls after ${lat.options.warmup} warm-up, ${lat.options.rounds} interleaved rounds; throughput ${lat.options.concurrency} in flight, ${lat.options.tputRounds} x ${lat.options.tputSeconds} s)`,
  );
  say();
  say(
    table(
      lat.rows.map((r) => ({
        path: r.path ?? r.id,
        'p50 ms': r.p50Ms,
        'p99 ms': r.p99Ms,
        'p50 / SDK stdio': r.p50VsSdkStdio,
        'p50 / SDK HTTP': r.p50VsSdkHttp,
        'proxy CPU us/call': r.proxyCpuUsPerCall,
        'calls/s': r.callsPerSec,
        'calls/s / SDK stdio': r.tputVsSdkStdio,
        error: r.error,
      })),
    ),
  );
  say();
  // A verdict only when both the path and its reference were measured (not with --only).
  /**
   * @param {string} id
   * @param {string} key
   */
  const ratio = (id, key) => lat.rows.find((r) => r.id === id)?.[key] ?? undefined;
  /**
   * @param {string} what
   * @param {string} goal
   * @param {string} id
   * @param {string} key
   * @param {(v: number) => boolean} ok
   */
  const check = (what, goal, id, key, ok) => {
    const v = ratio(id, key);
    if (typeof v === 'number') verdict(what, goal, `${v}x`, ok(v));
  };
  check('stdio aggregation p50', '<= 1.5x direct SDK stdio', 'ours-stdio', 'p50VsSdkStdio', (v) => v <= 1.5);
  check('stdio aggregation throughput', '>= 0.7x direct SDK stdio', 'ours-stdio', 'tputVsSdkStdio', (v) => v >= 0.7);
  check('bridge /mcp/<id> p50', '<= SDK streamable HTTP server', 'ours-bridge-id', 'p50VsSdkHttp', (v) => v <= 1);
  check('full ACP chain p50', '<= 2.5x direct SDK stdio', 'ours-acp-chain', 'p50VsSdkStdio', (v) => v <= 2.5);
}

// Node 20 (this machine's node) and, when measured, Node 22 (the Node inside Electron, which
// runs the app's stdio proxy: `npm run bench:readiness:node22`).
for (const [name, which] of [
  ['readiness', 'Node 20'],
  ['readiness.node22', 'Node 22, the Node the app runs the proxy with'],
]) {
  const ready = load(name);
  if (!ready) continue;
  say(
    `### 2${name === 'readiness' ? '' : 'b'}. Readiness under ${which}: spawn to a complete tools/list (${ready.options.rounds} interleaved rounds, node ${ready.env?.node ?? '?'})`,
  );
  say();
  say(
    table(
      ready.rows.map((r) => ({
        what: r.what,
        tools: r.tools,
        'median ms': r.medianMs,
        'p90 ms': r.p90Ms,
        'min ms': r.minMs,
        'proxy / this': r.proxyVsThis,
      })),
    ),
  );
  say();
  verdict(`warm-bridge readiness (${which.split(',')[0]})`, '<= 200 ms', `${ready.proxyMedianMs} ms`, ready.targetMet);
}

const st = load('startup');
if (st) {
  say(`### 3. Bridge start-up, spawn to ready line (${st.options.rounds} interleaved rounds)`);
  say();
  say(
    table(
      st.rows.map((r) => ({
        bridge: r.id,
        servers: r.servers,
        'median ms': r.readyMedianMs,
        'min ms': r.readyMinMs,
        'CPU ms (tree)': r.cpuMedianMs,
        'CPU / cores ms': r.cpuFloorMs,
        '/ slowest single': r.vsSlowestSingle,
      })),
    ),
  );
  say();
  verdict(
    'bridge start-up, 10 servers',
    '<= 1.3x slowest single',
    `${st.ratio}x (slowest: ${st.slowestSingle})`,
    st.targetMet,
  );
}

const big = load('bigResults');
if (big) {
  say('### 4. Big tool results (time per call, median; peak RSS of the proxy processes)');
  say();
  say(
    table(
      big.rows.map((r) => ({
        path: r.path ?? r.id,
        '1 MiB ms': r['1MiBMs'],
        '1 MiB / SDK stdio': r['1MiBVsSdkStdio'],
        '1 MiB peak RSS MiB': r['1MiBPeakRssMiB'],
        '10 MiB ms': r['10MiBMs'],
        '10 MiB / SDK stdio': r['10MiBVsSdkStdio'],
        '10 MiB peak RSS MiB': r['10MiBPeakRssMiB'],
        '10 MiB ok': r['10MiBOk'] ?? r.error,
      })),
    ),
  );
  say();
  const ours = big.rows.filter((r) => r.id.startsWith('ours-'));
  verdict(
    '10 MiB result on every path of ours',
    'all succeed',
    ours.map((r) => `${r.id}: ${r['10MiBOk']}`).join(', '),
    ours.length > 0 && ours.every((r) => r['10MiBOk'] === 'yes'),
  );
  if (big.cut?.length) {
    say();
    say(
      'A 2 MiB result in an aggregate: passed whole (`maxResultBytes: "off"`), cut to the default cap, and read back whole:',
    );
    say();
    say(
      table(
        big.cut.map((/** @type {Record<string, unknown>} */ r) => ({
          path: r.path ?? r.id,
          'whole ms': r.wholeMs,
          'cut ms': r.cutMs,
          'cut result bytes': r.cutBytes,
          'resources/read of the whole ms': r.readWholeMs,
          'peak RSS MiB': r.cutPeakRssMiB,
          ok: r.ok,
        })),
      ),
    );
  }
}

const stop = load('stop');
if (stop) {
  say('### 5. Stop of a bridge with 10 servers, one ignoring SIGTERM behind a shell wrapper');
  say();
  say(
    table(
      stop.runs.map((r) => ({
        round: r.round,
        processes: r.processes,
        'servers gone ms': r.serversGoneMs,
        'bridge exit ms': r.bridgeExitMs,
        'left at bridge exit': r.leftAtBridgeExit,
        'left 1 s later': r.leftAfter1s,
      })),
    ),
  );
  say();
  verdict(
    'stop, 10 servers, one stubborn',
    '<= 5 s, 0 left',
    `${stop.summary.allGoneMaxMs} ms max, ${stop.summary.leftMax} left`,
    stop.targetMet,
  );
}

const lt = load('logTail');
if (lt) {
  const s = lt.summary;
  say(
    `### 6. Log tail (${s.entries} entries = ${s.lines} lines from ${s.writers} writer processes at ${s.actualRatePerSec} entries/s)`,
  );
  say();
  say(
    table([
      {
        delivered: s.delivered,
        lost: s.lost,
        duplicated: s.duplicated,
        'out of order': s.outOfOrder,
        'p50 ms': s.p50Ms,
        'p99 ms': s.p99Ms,
        'max ms': s.maxMs,
        'isolated entries p50 ms': s.isolatedP50Ms,
        'isolated max ms': s.isolatedMaxMs,
      },
    ]),
  );
  say();
  verdict(
    'log tail',
    'p99 <= 250 ms, 0 lost',
    `p99 ${s.p99Ms} ms, ${s.lost} lost, ${s.duplicated} duplicated`,
    lt.targetMet,
  );
}

const rss = load('rss');
if (rss) {
  say(`### 7. RSS, idle and under load (${rss.options.rounds} x ${rss.options.seconds} s with 32 calls in flight)`);
  say();
  say(
    table(
      rss.rows.map((r) => ({
        path: r.id,
        process: r.process,
        'idle MiB': r.idleRssMiB,
        'under load max MiB': r.loadRssMaxMiB,
        'peak (VmHWM) MiB': r.loadPeakHwmMiB,
        'calls/s': r.callsPerSecUnderLoad,
        error: r.error,
      })),
    ),
  );
  say();
}

if (verdicts.length) {
  say('### Targets');
  say();
  say(table(verdicts));
}
process.stdout.write(`${out.join('\n')}\n`);
