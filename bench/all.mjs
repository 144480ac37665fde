// Runs every benchmark in turn (each in its own process, each bounded in time, the next one
// started only when the previous one and all its processes are gone), then prints the
// summary of bench/report.mjs. Arguments (for example --quick) are passed to each bench.
//   node bench/all.mjs [--quick] [--skip latency,rss]
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BENCH } from './lib/common.mjs';

const BENCHES = ['latency', 'bigResults', 'readiness', 'startup', 'stop', 'logTail', 'rss'];
const args = process.argv.slice(2);
const skipIdx = args.indexOf('--skip');
const skip = skipIdx >= 0 ? args.splice(skipIdx, 2)[1].split(',') : [];
const LIMIT_MS = 12 * 60_000; // each bench has its own, shorter deadline; this is the backstop

const results = [];
for (const name of BENCHES.filter((b) => !skip.includes(b))) {
  const t0 = Date.now();
  process.stderr.write(`\n=== ${name} ===\n`);
  const child = spawn(process.execPath, [join(BENCH, `${name}.mjs`), ...args], { stdio: 'inherit' });
  const timer = setTimeout(() => {
    process.stderr.write(`${name}: over ${LIMIT_MS} ms, killing pid ${child.pid}\n`);
    child.kill('SIGKILL');
  }, LIMIT_MS);
  const code = await new Promise((resolve) => child.on('exit', (c, sig) => resolve(c ?? sig)));
  clearTimeout(timer);
  results.push({ name, code, seconds: Math.round((Date.now() - t0) / 1000) });
}
process.stderr.write(`\n${results.map((r) => `${r.name}: exit ${r.code} in ${r.seconds} s`).join('\n')}\n`);
const report = spawn(process.execPath, [join(BENCH, 'report.mjs'), ...(args.includes('--quick') ? ['--quick'] : [])], { stdio: 'inherit' });
await new Promise((resolve) => report.on('exit', resolve));
process.exitCode = results.every((r) => r.code === 0) ? 0 : 1;
