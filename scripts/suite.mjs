#!/usr/bin/env node
// The test suite, as `npm test` runs it: `vitest run` (with any arguments given) under the Node
// running this script, then once more under Node 24, the Node that Electron 43-45 ship (npm
// node@24 from scripts/ensureNode.mjs), so every test process, and every process a test starts
// with `process.execPath`, runs under both. The second run is left out when the first one was
// Node 24 already. A JSON report (`--outputFile=<file>`, as .ci/run asks for) gets both runs'
// counts: each run writes its own file beside it, and <file> sums them. Exits non-zero when
// either run failed.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode } from './ensureNode.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
/** The Node the suite runs under besides the one running it. */
const ALSO = 24;
const COUNTS = ['numTotalTests', 'numPassedTests', 'numFailedTests', 'numPendingTests', 'numTodoTests'];

const args = process.argv.slice(2);
const outputAt = args.findIndex((a) => a.startsWith('--outputFile='));
const output = outputAt < 0 ? undefined : args[outputAt].slice('--outputFile='.length);

/**
 * `vitest run` under `node`, its JSON report (if asked for) in a file of its own.
 * @param {string} node
 * @param {string} label
 */
function run(node, label) {
  const own =
    output === undefined ? args : args.map((a, i) => (i === outputAt ? `--outputFile=${output}.${label}.json` : a));
  process.stdout.write(`suite: vitest run under ${label} (${node})\n`);
  return spawnSync(node, [VITEST, 'run', ...own], { cwd: ROOT, stdio: 'inherit' }).status ?? 1;
}

const here = Number(process.versions.node.split('.')[0]);
const labels = [`node${here}`];
let status = run(process.execPath, labels[0]);
if (here !== ALSO) {
  labels.push(`node${ALSO}`);
  const second = run(ensureNode(ALSO), labels[1]);
  status = status || second;
} else process.stdout.write(`suite: the run under Node ${process.versions.node} was the Node ${ALSO} run\n`);

if (output !== undefined) {
  /** @type {Record<string, number>} */
  const sum = Object.fromEntries(COUNTS.map((k) => [k, 0]));
  for (const label of labels) {
    const file = `${output}.${label}.json`;
    if (!existsSync(file)) continue;
    const report = JSON.parse(readFileSync(file, 'utf8'));
    for (const k of COUNTS) sum[k] += Number(report[k] ?? 0);
  }
  writeFileSync(output, JSON.stringify({ ...sum, runs: labels }));
}
process.exit(status);
