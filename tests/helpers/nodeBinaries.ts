// Node binaries of other majors for the tests that need one: $QIMING_NODE<major> when set, else
// the npm `node@<major>` that scripts/ensureNode.mjs installs into .cache/node<major> (Node 22 by
// `npm test` before vitest; any other here on first use). The MCP conformance suite 0.1.16
// requires Node 22; the CLI is smoke-tested under each Node the README names.
import { ensureNode } from '../../scripts/ensureNode.mjs';

const cached = new Map<number, string>();

/** Path of a Node `major` binary (installs npm node@<major> into .cache/ on first use). */
export function nodeBinary(major: number): string {
  let bin = cached.get(major);
  if (bin === undefined) {
    bin = ensureNode(major, { quiet: true });
    cached.set(major, bin);
  }
  return bin;
}

/** Path of a Node 22 binary. */
export const node22 = (): string => nodeBinary(22);
