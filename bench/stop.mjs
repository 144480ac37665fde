// Bench 5: stopping a bridge with 10 servers, one of which ignores SIGTERM and stdin EOF
// behind a shell wrapper that ignores SIGTERM too (tests/fixtures/ignoresTermServer.sh), so
// the stubborn server is a grandchild. SIGTERM goes to the bridge's pid; measured: time to
// the bridge's exit, time until every process of its tree (snapshotted before the stop) is
// gone, and how many were left when the bridge exited and 1 s later (must be 0).
//   node bench/stop.mjs [--quick] [--rounds 5]
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBridge } from './lib/paths.mjs';
import {
  ECHO_SERVER,
  ROOT,
  descendants,
  environment,
  isGone,
  median,
  now,
  options,
  round,
  runBench,
  saveResults,
  sleep,
  table,
} from './lib/common.mjs';

const opts = options({ rounds: 5, deadlineMs: 300_000 }, { rounds: 2, deadlineMs: 120_000 });
const node = process.execPath;
const IGNORES_TERM = join(ROOT, 'tests', 'fixtures', 'ignoresTermServer.sh');
const TARGET_MS = 5000;

await runBench('stop', opts.deadlineMs, async (procs) => {
  const dir = mkdtempSync(join(tmpdir(), 'qiming-bench-stop-'));
  /** @type {{ round: number; processes: number; serversGoneMs: number | null; bridgeExitMs: number | null; allGoneMs: number | null; leftAtBridgeExit: number | undefined; leftAfter1s: number; exit: unknown }[]} */
  const runs = [];
  try {
    for (let r = 0; r < opts.rounds; r++) {
      const pidFile = join(dir, `stubborn-${r}.pids`);
      /** @type {Record<string, { command: string; args: string[] }>} */
      const servers = {};
      for (let i = 1; i <= 9; i++) servers[`echo${i}`] = { command: node, args: [ECHO_SERVER] };
      servers.stubborn = { command: 'sh', args: [IGNORES_TERM, pidFile] };
      const b = await startBridge(procs, servers, `bridge-stop-${r}`);
      const bad = b.ready.servers.filter((s) => s.state !== 'ready');
      if (bad.length) throw new Error(`servers not ready: ${JSON.stringify(bad)}`);
      const stubborn = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number) : [];
      const tree = [...new Set([...descendants(b.pid), ...stubborn])];
      procs.snapshot();
      const t0 = now();
      /** @type {number | undefined} */
      let treeGoneMs;
      /** @type {number | undefined} */
      let bridgeExitMs;
      /** @type {number | undefined} */
      let leftAtExit;
      b.child.once('exit', () => {
        bridgeExitMs = now() - t0;
        leftAtExit = tree.filter((p) => !isGone(p)).length;
      });
      process.kill(b.pid, 'SIGTERM');
      // Polls the tree and the bridge together: the tree can be gone before the bridge exits.
      while (now() - t0 < 20_000 && (treeGoneMs === undefined || bridgeExitMs === undefined)) {
        if (treeGoneMs === undefined && tree.every(isGone)) treeGoneMs = now() - t0;
        await sleep(5);
      }
      await sleep(Math.max(0, 1000 - (now() - t0 - (bridgeExitMs ?? 0))));
      const leftAfter1s = tree.filter((p) => !isGone(p));
      const allGoneMs = Math.max(bridgeExitMs ?? Infinity, treeGoneMs ?? Infinity);
      runs.push({
        round: r + 1,
        processes: tree.length + 1,
        serversGoneMs: round(treeGoneMs, 0),
        bridgeExitMs: round(bridgeExitMs, 0),
        allGoneMs: round(allGoneMs, 0),
        leftAtBridgeExit: leftAtExit,
        leftAfter1s: leftAfter1s.length,
        exit: b.child.exitInfo,
      });
      await procs.end(b.pid, 1000); // ends anything still there, by pid
      for (const p of leftAfter1s) await procs.end(p, 100);
      process.stderr.write(
        `stop round ${r + 1}/${opts.rounds}: bridge exit ${round(bridgeExitMs, 0)} ms, all gone ${round(allGoneMs, 0)} ms, left ${leftAfter1s.length}\n`,
      );
    }
    // A figure is null only for a round that timed out; median and max see it as before.
    /** @param {(number | null)[]} v */
    const figures = (v) => /** @type {number[]} */ (v);
    const summary = {
      serversGoneMedianMs: round(median(figures(runs.map((x) => x.serversGoneMs))), 0),
      bridgeExitMedianMs: round(median(figures(runs.map((x) => x.bridgeExitMs))), 0),
      allGoneMedianMs: round(median(figures(runs.map((x) => x.allGoneMs))), 0),
      allGoneMaxMs: Math.max(...figures(runs.map((x) => x.allGoneMs))),
      leftMax: Math.max(...runs.map((x) => x.leftAfter1s)),
    };
    const targetMet = summary.allGoneMaxMs <= TARGET_MS && summary.leftMax === 0;
    saveResults('stop', {
      bench: 'stop',
      env: environment(),
      options: opts,
      targetMs: TARGET_MS,
      targetMet,
      summary,
      runs,
    });
    process.stdout.write(
      `${table(runs, ['round', 'processes', 'serversGoneMs', 'bridgeExitMs', 'allGoneMs', 'leftAtBridgeExit', 'leftAfter1s'])}\n`,
    );
    process.stdout.write(
      `stop: median ${summary.allGoneMedianMs} ms, max ${summary.allGoneMaxMs} ms, left ${summary.leftMax} (target <= ${TARGET_MS} ms, 0 left): ${targetMet ? 'met' : 'MISSED'}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
