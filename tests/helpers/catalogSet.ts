// The tool catalog of 22 real MCP servers (tests/fixtures/toolCatalog/) and its replay: the
// server ids, the captured files, and the config entries that serve each one again through
// tests/fixtures/catalogServer.mjs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { FIXTURES } from './paths.js';

export const CATALOG_DIR = join(FIXTURES, 'toolCatalog');
export const CATALOG_SERVER = join(FIXTURES, 'catalogServer.mjs');

/** The ids of the captured servers, each a file `<id>.json` of CATALOG_DIR. */
export const CATALOG_IDS = [
  'playwright',
  'chrome-devtools',
  'context7',
  'filesystem',
  'memory',
  'sequential-thinking',
  'everything',
  'github',
  'notion',
  'firecrawl',
  'desktop-commander',
  'mongodb',
  'sentry',
  'chart',
  'tavily',
  'exa',
  'figma',
  'kubernetes',
  'brave-search',
  'azure',
  'task-master',
  'puppeteer',
] as const;
export type CatalogId = (typeof CATALOG_IDS)[number];

/** A tool as a server listed it. */
export interface CatalogTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  [key: string]: unknown;
}

/** One captured file. */
export interface CapturedServer {
  package: string;
  version: string;
  license: string;
  serverInfo: { name: string; version: string; title?: string; description?: string; [key: string]: unknown };
  instructions: string | null;
  tools: CatalogTool[];
}

const loaded = new Map<string, CapturedServer>();

/** The captured file of one server (read once). */
export function loadCatalog(id: CatalogId): CapturedServer {
  let entry = loaded.get(id);
  if (!entry) {
    entry = JSON.parse(readFileSync(join(CATALOG_DIR, `${id}.json`), 'utf8')) as CapturedServer;
    loaded.set(id, entry);
  }
  return entry;
}

/** Every captured tool with its server id, in catalog order. */
export function catalogTools(
  ids: readonly CatalogId[] = CATALOG_IDS,
): Array<{ serverId: CatalogId; tool: CatalogTool }> {
  return ids.flatMap((serverId) => loadCatalog(serverId).tools.map((tool) => ({ serverId, tool })));
}

/** A replayed server as a config entry, with its id. */
export interface CatalogEntry {
  id: CatalogId;
  command: string;
  args: string[];
}

/** The replay entries of `ids` (all by default): `{ id, command: node, args: [catalogServer.mjs, id] }`. */
export function catalogEntries(ids: readonly CatalogId[] = CATALOG_IDS): CatalogEntry[] {
  return ids.map((id) => ({ id, command: process.execPath, args: [CATALOG_SERVER, id] }));
}

/** The `mcpServers` object of a config replaying `ids` (all by default). */
export function catalogServers(
  ids: readonly CatalogId[] = CATALOG_IDS,
): Record<string, { command: string; args: string[] }> {
  return Object.fromEntries(catalogEntries(ids).map(({ id, command, args }) => [id, { command, args }]));
}
