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
// Readiness once more under Node 22, the Node inside Electron that runs the app's proxy
// (fetched from the npm registry by npx; skipped with a note when that is not possible).
if (!skip.includes('readiness') && !skip.includes('readiness-node22')) {
  const t0 = Date.now();
  process.stderr.write('\n=== readiness under node 22 ===\n');
  const child = spawn('npx', ['-y', '-p', 'node@22', 'node', join(BENCH, 'readiness.mjs'), ...args], {
    stdio: 'inherit',
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  const code = await new Promise((resolve) =>
    child.on('exit', (c, sig) => resolve(c ?? sig)).on('error', (e) => resolve(e.message)),
  );
  clearTimeout(timer);
  results.push({ name: 'readiness (node 22)', code, seconds: Math.round((Date.now() - t0) / 1000) });
}
process.stderr.write(`\n${results.map((r) => `${r.name}: exit ${r.code} in ${r.seconds} s`).join('\n')}\n`);
const report = spawn(process.execPath, [join(BENCH, 'report.mjs'), ...(args.includes('--quick') ? ['--quick'] : [])], {
  stdio: 'inherit',
});
await new Promise((resolve) => report.on('exit', resolve));
process.exitCode = results.every((r) => r.code === 0) ? 0 : 1;
