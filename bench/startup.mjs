// Bench 3: bridge start-up (spawn to its ready line, every server settled) with 10 servers,
// against a bridge with each kind of server alone; the reference is the slowest of those.
// The 10: server-everything, server-memory, server-filesystem and 7 echo servers. Also
// reports the CPU time the whole tree used until ready: on a small machine, starting ten
// Node processes at once is CPU-bound, and CPU / cores is a floor no scheduling can beat.
//   node bench/startup.mjs [--quick] [--rounds 8]
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBridge } from './lib/paths.mjs';
import {
  ECHO_SERVER,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  MEMORY_SERVER,
  cpuMs,
  descendants,
  environment,
  median,
  now,
  options,
  round,
  runBench,
  saveResults,
  table,
} from './lib/common.mjs';

const opts = options({ rounds: 8, deadlineMs: 400_000 }, { rounds: 2, deadlineMs: 180_000 });
const node = process.execPath;
const TARGET_RATIO = 1.3;
await runBench('startup', opts.deadlineMs, async (procs) => {
  const dir = mkdtempSync(join(tmpdir(), 'qiming-bench-startup-'));
  try {
    const fsRoot = join(dir, 'files');
    mkdirSync(fsRoot);
    const kinds = {
      everything: { command: node, args: [EVERYTHING_SERVER, 'stdio'] },
      memory: { command: node, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
      filesystem: { command: node, args: [FILESYSTEM_SERVER, fsRoot] },
      echo: { command: node, args: [ECHO_SERVER] },
    };
    /** @type {Record<string, { command: string; args: string[]; env?: Record<string, string> }>} */
    const ten = { everything: kinds.everything, memory: kinds.memory, filesystem: kinds.filesystem };
    for (let i = 1; i <= 7; i++) ten[`echo${i}`] = kinds.echo;
    const configs = [
      { id: 'bridge-10', servers: ten },
      ...Object.entries(kinds).map(([k, v]) => ({ id: `bridge-1-${k}`, servers: { [k]: v } })),
    ].map((c) => ({
      ...c,
      ms: /** @type {number[]} */ ([]),
      cpu: /** @type {number[]} */ ([]),
    }));

    /** @param {(typeof configs)[number]} c */
    async function once(c) {
      const t0 = now();
      const b = await startBridge(procs, c.servers, c.id);
      const ms = now() - t0;
      const tree = [b.pid, ...descendants(b.pid)];
      const cpu = tree.reduce((s, p) => s + cpuMs(p), 0);
      const bad = b.ready.servers.filter((s) => s.state !== 'ready');
      if (bad.length) throw new Error(`${c.id}: servers not ready: ${JSON.stringify(bad)}`);
      procs.snapshot();
      const left = await procs.end(b.pid, 8000);
      if (left.length) throw new Error(`${c.id}: ${left.length} processes left after stop`);
      return { ms, cpu };
    }

    for (const c of configs) await once(c); // warm the file cache; not measured
    for (let r = 0; r < opts.rounds; r++) {
      for (let k = 0; k < configs.length; k++) {
        const c = configs[(k + r) % configs.length];
        const res = await once(c);
        c.ms.push(res.ms);
        c.cpu.push(res.cpu);
      }
      process.stderr.write(`startup round ${r + 1}/${opts.rounds} done\n`);
    }
    const singles = configs.slice(1);
    const slowest = singles.reduce((a, b) => (median(b.ms) > median(a.ms) ? b : a));
    const nproc = environment().machine.nproc;
    const rows = configs.map((c) => ({
      id: c.id,
      servers: Object.keys(c.servers).length,
      readyMedianMs: round(median(c.ms), 1),
      readyMinMs: round(Math.min(...c.ms), 1),
      cpuMedianMs: round(median(c.cpu), 0),
      cpuFloorMs: round(median(c.cpu) / nproc, 0),
      vsSlowestSingle: round(median(c.ms) / median(slowest.ms), 2),
    }));
    const ratio = rows[0].vsSlowestSingle;
    const result = {
      bench: 'startup',
      env: environment(),
      options: opts,
      slowestSingle: slowest.id,
      ratio,
      targetRatio: TARGET_RATIO,
      targetMet: (ratio ?? Infinity) <= TARGET_RATIO,
      rows,
    };
    saveResults('startup', result);
    process.stdout.write(`${table(rows)}\n`);
    process.stdout.write(
      `10 servers vs slowest single (${slowest.id}): ${ratio}x (target <= ${TARGET_RATIO}x): ${result.targetMet ? 'met' : 'MISSED'}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
