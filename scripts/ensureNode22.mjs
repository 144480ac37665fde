#!/usr/bin/env node
// A Node 22 binary for the MCP conformance suite 0.1.16 (it requires Node 22): scripts/ensureNode.mjs
// for major 22 (npm `node@22` in .cache/node22, or $QIMING_NODE22), its path printed on stdout.
import { pathToFileURL } from 'node:url';
import { ensureNode, nodePrefix } from './ensureNode.mjs';

export const NODE22_PREFIX = nodePrefix(22);

/**
 * Returns the path of a Node 22 binary, installing npm node@22 into .cache/node22 if needed.
 * @param {{ quiet?: boolean }} [options]
 * @returns {string}
 */
export const ensureNode22 = (options = {}) => ensureNode(22, options);

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    process.stdout.write(`${ensureNode22()}\n`);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
