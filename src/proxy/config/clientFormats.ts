/**
 * Where the servers are in a config written for another MCP client, one rule for the CLI's
 * loader (config.ts) and the panel's import (configImport.ts, which also takes a bare
 * `{"<id>": entry}` map from a pasted fragment):
 *
 * - `mcpServers`: Claude Desktop's `claude_desktop_config.json`, Cursor's `mcp.json`, ours;
 * - `servers` (with `inputs` beside it): VS Code's `mcp.json`;
 * - `mcp.servers`: VS Code's `settings.json`.
 *
 * The first that is an object wins, but for a file with both `mcpServers` and `servers` (a
 * VS Code file that another tool added `mcpServers` to): both are read, `mcpServers` first
 * and winning for an id in both. The entries themselves are alike across these clients
 * (`command`/`args`/`env` or `url`/`headers`, VS Code's `type: "stdio" | "http" | "sse"`);
 * their `${...}` variables are read by envExpand.ts.
 */
import { isPlainObject } from './configEntry.js';

/** The servers map of a config and the key it was found under. */
export interface FoundServers {
  key: 'mcpServers' | 'servers' | 'mcpServers+servers' | 'mcp.servers';
  servers: Record<string, unknown>;
}

/** Finds the servers map (see the file comment); undefined when there is none. */
export function findServers(raw: unknown): FoundServers | undefined {
  if (!isPlainObject(raw)) return undefined;
  const { mcpServers: ours, servers: theirs, mcp } = raw;
  if (isPlainObject(ours) && isPlainObject(theirs)) {
    const more = Object.entries(theirs).filter(([id]) => !Object.hasOwn(ours, id));
    return { key: 'mcpServers+servers', servers: { ...ours, ...Object.fromEntries(more) } };
  }
  if (isPlainObject(ours)) return { key: 'mcpServers', servers: ours };
  if (isPlainObject(theirs)) return { key: 'servers', servers: theirs };
  if (isPlainObject(mcp) && isPlainObject(mcp.servers)) return { key: 'mcp.servers', servers: mcp.servers };
  return undefined;
}
