// The Node 22 binary for tests that need one (the MCP conformance suite 0.1.16 requires
// Node 22): $QIMING_NODE22 when set, else the npm `node@22` that scripts/ensureNode22.mjs
// installs into .cache/node22 (run by `npm test` before vitest; installed here on first use).
import { ensureNode22 } from '../../scripts/ensureNode22.mjs';

let cached: string | undefined;

/** Path of a Node 22 binary (installs npm node@22 into .cache/node22 on first use). */
export function node22(): string {
  cached ??= ensureNode22({ quiet: true });
  return cached;
}
