#!/usr/bin/env node
// The test suite, as `npm test` runs it: `vitest run` (with any arguments given) under Node 24,
// the Node that Electron 43-45 ship (npm node@24 from scripts/ensureNode.mjs, or the Node
// running this script when it is 24 already), so every test process, and every process a test
// starts with `process.execPath`, runs under the Node the app runs its proxies with. The CLI is
// smoke-tested under each Node the README names (tests/proxy/cli/cliUnderNodes.test.ts) and the
// conformance suite runs under Node 22, the floor. Why one run and not one per Node: decision
// 0047. Exits with vitest's status.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode } from './ensureNode.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
/** The Node the suite runs under. */
const SUITE_NODE = 24;

const here = Number(process.versions.node.split('.')[0]);
const node = here === SUITE_NODE ? process.execPath : ensureNode(SUITE_NODE);
process.stdout.write(`suite: vitest run under Node ${SUITE_NODE} (${node})\n`);
const res = spawnSync(node, [VITEST, 'run', ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' });
process.exit(res.status ?? 1);
