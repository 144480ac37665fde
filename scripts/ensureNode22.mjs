#!/usr/bin/env node
// Makes sure a Node 22 binary is at hand for the tests that need one (the MCP conformance
// suite 0.1.16 requires Node 22): npm package `node@22` installed into `.cache/node22`
// (gitignored) when absent, and its path printed on stdout. Idempotent: when the binary is
// there and answers `--version` with v22, nothing is installed. `QIMING_NODE22` (a path to a
// Node 22 binary) skips the install entirely.
//
// node@22 is deliberately NOT a devDependency: its bin `node` would shadow the Node that runs
// every npm script.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const NODE22_PREFIX = join(ROOT, '.cache', 'node22');
const BIN =
  process.platform === 'win32'
    ? join(NODE22_PREFIX, 'node_modules', 'node', 'bin', 'node.exe')
    : join(NODE22_PREFIX, 'node_modules', '.bin', 'node');

/**
 * The major version of the Node at `bin`, or undefined when it does not run.
 * @param {string} bin
 */
function majorOf(bin) {
  try {
    const v = execFileSync(bin, ['--version'], {
      encoding: 'utf8',
      timeout: 20_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return Number(/^v(\d+)\./.exec(v)?.[1]);
  } catch {
    return undefined;
  }
}

/**
 * Returns the path of a Node 22 binary, installing npm `node@22` into .cache/node22 if needed.
 * @param {{ quiet?: boolean }} [options]
 * @returns {string}
 */
export function ensureNode22({ quiet = false } = {}) {
  const override = process.env.QIMING_NODE22;
  if (override) {
    if (majorOf(override) !== 22) throw new Error(`QIMING_NODE22=${override} is not a Node 22 binary`);
    return override;
  }
  if (existsSync(BIN) && majorOf(BIN) === 22) return BIN;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  if (!quiet) process.stderr.write(`ensureNode22: installing node@22 into ${NODE22_PREFIX}\n`);
  execFileSync(npm, ['install', '--prefix', NODE22_PREFIX, '--no-audit', '--no-fund', '--no-save', 'node@22'], {
    cwd: ROOT,
    stdio: ['ignore', quiet ? 'ignore' : process.stderr, 'inherit'],
    shell: process.platform === 'win32',
  });
  const major = majorOf(BIN);
  if (major !== 22)
    throw new Error(
      `ensureNode22: after npm install, ${BIN} is ${major === undefined ? 'missing or broken' : `Node ${major}`}`,
    );
  return BIN;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    process.stdout.write(`${ensureNode22()}\n`);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
