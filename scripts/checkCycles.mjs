#!/usr/bin/env node
// Reports import cycles among the TypeScript files under a folder (default src/), type-only
// imports included: every `from '...'`, `import '...'` and `import('...')` with a relative
// target counts. Exit code 1 when there is a cycle. Usage: node scripts/checkCycles.mjs [dir]
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, dirname, resolve, relative } from 'node:path';

const root = resolve(process.argv[2] ?? 'src');
const files = [];
(function walk(d) {
  for (const n of readdirSync(d)) {
    const p = join(d, n);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.tsx?$/.test(n) && !n.endsWith('.d.ts')) files.push(p);
  }
})(root);

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
/**
 * The .ts file a relative import names, or undefined (a package, a missing file).
 * @param {string} from
 * @param {string} spec
 */
function target(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const c of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, join(base, 'index.ts')])
    if (existsSync(c)) return c;
  return undefined;
}
const graph = new Map(
  files.map((f) => [
    f,
    [...readFileSync(f, 'utf8').matchAll(IMPORT)].map((m) => target(f, m[1])).filter((t) => t !== undefined),
  ]),
);

// Tarjan's strongly connected components: every component of more than one file is a cycle.
let index = 0;
const idx = new Map(),
  low = new Map(),
  stack = /** @type {string[]} */ ([]),
  on = new Set(),
  cycles = /** @type {string[][]} */ ([]);
/** @param {string} v */
function visit(v) {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  on.add(v);
  for (const w of graph.get(v) ?? []) {
    if (!idx.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) !== idx.get(v)) return;
  const comp = [];
  let w;
  do {
    w = /** @type {string} */ (stack.pop());
    on.delete(w);
    comp.push(w);
  } while (w !== v);
  if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(comp);
}
for (const f of files) if (!idx.has(f)) visit(f);

/** @param {string} f */
const rel = (f) => relative(process.cwd(), f);
for (const c of cycles) console.log(`cycle: ${c.map(rel).sort().join(', ')}`);
console.log(`${files.length} files, ${cycles.length} import cycle(s)`);
process.exit(cycles.length ? 1 : 0);
