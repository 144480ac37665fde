// Summarises a V8 .cpuprofile (from `node --cpu-prof`): top functions by self time, and self
// time per source (our bundle, a package, node internals, GC, idle).
//   node bench/profileSummary.mjs <file.cpuprofile> [--top 25] [--total]
import { readFileSync } from 'node:fs';

const file = process.argv[2];
const topIdx = process.argv.indexOf('--top');
const top = topIdx > 0 ? Number(process.argv[topIdx + 1]) : 25;
if (!file) {
  process.stderr.write('usage: node bench/profileSummary.mjs <file.cpuprofile> [--top N]\n');
  process.exit(2);
}
/**
 * The parts of a V8 CPU profile read here.
 * @typedef {{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }} ProfileNode
 * @type {{ nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }}
 */
const profile = JSON.parse(readFileSync(file, 'utf8'));
/** @type {Map<number, ProfileNode>} */
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
/** @type {Map<number, number>} */
const selfUs = new Map();
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0));
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** @param {string} url */
function sourceOf(url) {
  if (!url) return '(native/vm)';
  if (url.startsWith('node:')) return 'node internals';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.includes('qiming-mcp-stdio-proxy')) return 'ours (dist bundle)';
  return url
    .replace(/^file:\/\//, '')
    .split('/')
    .slice(-2)
    .join('/');
}

/** @type {Map<string, number>} */
const fnSelf = new Map();
/** @type {Map<string, number>} */
const srcSelf = new Map();
for (const [id, us] of selfUs) {
  const n = /** @type {ProfileNode} */ (byId.get(id));
  const cf = n.callFrame;
  const name = cf.functionName || '(anonymous)';
  const key = ['(idle)', '(program)', '(garbage collector)', '(root)'].includes(name)
    ? name
    : `${name} ${cf.url ? `${cf.url.replace(/^.*\//, '')}:${cf.lineNumber + 1}` : ''}`;
  fnSelf.set(key, (fnSelf.get(key) ?? 0) + us);
  const src = name.startsWith('(') && !cf.url ? name : sourceOf(cf.url);
  srcSelf.set(src, (srcSelf.get(src) ?? 0) + us);
}
// Inclusive (total) time per function: self time of its node and all descendants; a function
// that appears more than once on one stack is counted once per stack (outermost frame).
/** @type {Map<number, number>} */
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
/** @param {ProfileNode} n */
const keyOf = (n) => {
  const cf = n.callFrame;
  const name = cf.functionName || '(anonymous)';
  return `${name} ${cf.url ? `${cf.url.replace(/^.*\//, '')}:${cf.lineNumber + 1}` : ''}`;
};
/** @type {Map<string, number>} */
const fnTotal = new Map();
for (const [id, us] of selfUs) {
  const keys = new Set();
  for (let /** @type {number | undefined} */ cur = id; cur !== undefined; cur = parent.get(cur))
    keys.add(keyOf(/** @type {ProfileNode} */ (byId.get(cur))));
  for (const k of keys) fnTotal.set(k, (fnTotal.get(k) ?? 0) + us);
}
/** @param {number} us */
const pct = (us) => `${((100 * us) / total).toFixed(1)}%`;
/** @param {number} us */
const ms = (us) => `${(us / 1000).toFixed(0)} ms`;
process.stdout.write(`profile ${file}: ${ms(total)} sampled\n\nself time by source:\n`);
for (const [k, v] of [...srcSelf].sort((a, b) => b[1] - a[1]).slice(0, 15))
  process.stdout.write(`  ${pct(v).padStart(6)} ${ms(v).padStart(9)}  ${k}\n`);
process.stdout.write(`\ntop ${top} functions by self time:\n`);
for (const [k, v] of [...fnSelf].sort((a, b) => b[1] - a[1]).slice(0, top))
  process.stdout.write(`  ${pct(v).padStart(6)} ${ms(v).padStart(9)}  ${k}\n`);
if (process.argv.includes('--total')) {
  process.stdout.write(`\ntop ${top} functions by total (inclusive) time:\n`);
  const skip = /^\((root|program|idle|garbage collector)\)/;
  for (const [k, v] of [...fnTotal]
    .filter(([k]) => !skip.test(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top))
    process.stdout.write(`  ${pct(v).padStart(6)} ${ms(v).padStart(9)}  ${k}\n`);
}
