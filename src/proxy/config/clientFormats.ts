/**
 * Where the servers are in a config written for another MCP client, one rule for the CLI's
 * loader (config.ts) and the panel's import (configImport.ts):
 *
 * - `{"mcpServers": {...}}`: Claude Desktop's `claude_desktop_config.json`, Cursor's `mcp.json`, ours;
 * - `{"servers": {...}, "inputs": [...]}`: VS Code's `mcp.json`;
 * - `{"mcp": {"servers": {...}}}`: VS Code's `settings.json`;
 * - a bare `{"<id>": entry}` map, for a pasted fragment only (`bareMap`).
 *
 * The first that is an object wins, but for a file with both `mcpServers` and `servers` (a
 * VS Code file that another tool added `mcpServers` to): both are read, `mcpServers` first
 * and winning for an id in both. The entries themselves are alike across these clients
 * (`command`/`args`/`env` or `url`/`headers`, VS Code's `type: "stdio" | "http" | "sse"`);
 * their `${...}` variables are read by envExpand.ts.
 */
import { isPlainObject } from './configEntry.js';

/** The servers map of a config and the name of its format, for the panel. */
export interface FoundServers {
  format: string;
  servers: Record<string, unknown>;
}

const looksLikeEntry = (v: unknown) => isPlainObject(v) && (typeof v.command === 'string' || typeof v.url === 'string');

/** Finds the servers map (see the file comment); undefined when there is none. */
export function findServers(raw: unknown, opts: { bareMap?: boolean } = {}): FoundServers | undefined {
  if (!isPlainObject(raw)) return undefined;
  if (isPlainObject(raw.mcpServers) && isPlainObject(raw.servers)) {
    const ours = raw.mcpServers;
    const theirs = Object.entries(raw.servers).filter(([id]) => !Object.hasOwn(ours, id));
    return { format: 'mcpServers and servers', servers: { ...ours, ...Object.fromEntries(theirs) } };
  }
  if (isPlainObject(raw.mcpServers)) return { format: 'mcpServers (Claude Desktop, Cursor)', servers: raw.mcpServers };
  if (isPlainObject(raw.servers)) return { format: 'VS Code mcp.json', servers: raw.servers };
  if (isPlainObject(raw.mcp) && isPlainObject(raw.mcp.servers)) return { format: 'VS Code settings', servers: raw.mcp.servers };
  if (!opts.bareMap) return undefined;
  const values = Object.values(raw);
  if (values.length && values.every(looksLikeEntry)) return { format: 'servers map', servers: raw };
  return undefined;
}
