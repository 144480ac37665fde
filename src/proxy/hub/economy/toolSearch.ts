/**
 * Ranks a scope's tools for a natural-language query: BM25+ over each tool's name (split at
 * `_`, `-` and camelCase), title, description, parameter names and its server's id and
 * summary, with minisearch (decisions/0031-tool-search.md). Built once per tool list; a
 * lazily loaded bundle file, so a start that never searches never reads it.
 */
import MiniSearch from 'minisearch';
import type { SearchableTool, ToolIndex } from './searchTypes.js';

interface Doc {
  id: number;
  name: string;
  title: string;
  description: string;
  params: string;
  server: string;
}

const FIELDS = ['name', 'title', 'description', 'params', 'server'] as const;
const BOOST = { name: 3, title: 2, description: 1, params: 1, server: 0.5 };

/** Words of an identifier or a sentence: `browser_takeScreenshot` → browser, take, screenshot. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

function paramNames(schema: unknown): string {
  const props = (schema as { properties?: unknown } | undefined)?.properties;
  return props && typeof props === 'object' ? Object.keys(props).join(' ') : '';
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function buildToolIndex(tools: readonly SearchableTool[]): ToolIndex {
  const index = new MiniSearch<Doc>({ fields: [...FIELDS], tokenize: words, searchOptions: { boost: BOOST } });
  index.addAll(
    tools.map((t, id) => ({
      id,
      name: t.name,
      title: text(t.tool.title) || text((t.tool.annotations as { title?: unknown } | undefined)?.title),
      description: text(t.tool.description),
      params: paramNames(t.tool.inputSchema),
      server: `${t.serverId} ${t.serverSummary ?? ''}`,
    })),
  );
  return {
    search(query, limit) {
      if (limit <= 0) return [];
      const hits = index.search(query, { prefix: (w) => w.length > 3, fuzzy: (w) => (w.length > 5 ? 0.2 : false) });
      return hits.slice(0, limit).map((h) => tools[h.id as number]!);
    },
  };
}
