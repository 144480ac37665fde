#!/usr/bin/env node
// Makes sure a Node binary of one major version is at hand for the steps and tests that need
// one: npm package `node@<major>` installed into `.cache/node<major>` (gitignored) when absent,
// and its path printed on stdout (`node scripts/ensureNode.mjs 24`). Idempotent: when the
// binary is there and answers `--version` with that major, nothing is installed.
// `QIMING_NODE<major>` (a path to such a binary) skips the install entirely. Who needs which:
// the MCP conformance suite 0.1.16 needs Node 22; `npm test` runs the suite under Node 24,
// the Node that Electron 43-45 ship; the CLI is smoke-tested under each Node the README names.
//
// node@<major> is deliberately NOT a devDependency: its bin `node` would shadow the Node that
// runs every npm script.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Where node@`major` is installed.
 * @param {number} major
 */
export const nodePrefix = (major) => join(ROOT, '.cache', `node${major}`);

/**
 * The binary of node@`major` in its prefix.
 * @param {number} major
 */
const binOf = (major) =>
  process.platform === 'win32'
    ? join(nodePrefix(major), 'node_modules', 'node', 'bin', 'node.exe')
    : join(nodePrefix(major), 'node_modules', '.bin', 'node');

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
 * Returns the path of a Node `major` binary, installing npm `node@<major>` into .cache/ if needed.
 * @param {number} major
 * @param {{ quiet?: boolean }} [options]
 * @returns {string}
 */
export function ensureNode(major, { quiet = false } = {}) {
  const variable = `QIMING_NODE${major}`;
  const override = process.env[variable];
  if (override) {
    if (majorOf(override) !== major) throw new Error(`${variable}=${override} is not a Node ${major} binary`);
    return override;
  }
  const bin = binOf(major);
  if (existsSync(bin) && majorOf(bin) === major) return bin;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const prefix = nodePrefix(major);
  if (!quiet) process.stderr.write(`ensureNode: installing node@${major} into ${prefix}\n`);
  execFileSync(npm, ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `node@${major}`], {
    cwd: ROOT,
    stdio: ['ignore', quiet ? 'ignore' : process.stderr, 'inherit'],
    shell: process.platform === 'win32',
  });
  const got = majorOf(bin);
  if (got !== major)
    throw new Error(
      `ensureNode: after npm install, ${bin} is ${got === undefined ? 'missing or broken' : `Node ${got}`}`,
    );
  return bin;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const major = Number(process.argv[2]);
  if (!Number.isInteger(major) || major < 18) {
    process.stderr.write('usage: node scripts/ensureNode.mjs <major> (e.g. 24)\n');
    process.exit(2);
  }
  try {
    process.stdout.write(`${ensureNode(major)}\n`);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
