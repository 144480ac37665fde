// The tool-search benchmark's data and measure, shared by bench/toolSearch.mjs (which ranks
// with the built bundle file) and tests/proxy/economy/toolSearchRecall.test.ts (which ranks
// with the source): the 22-server catalog as an aggregate exposes it, the tasks, and recall@k.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CATALOG = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'tests', 'fixtures', 'toolCatalog');

/**
 * @typedef {{ name: string; serverId: string; tool: Record<string, unknown>; serverSummary?: string }} CatalogTool
 * @typedef {{ task: string; tools: string[]; heldOut?: boolean }} Task
 * @typedef {{ search(query: string, limit: number): { name: string }[] }} Index
 */

/** The hub's longest server summary. */
const MAX_SUMMARY_CHARS = 140;

/** @param {unknown} v */
const oneLine = (v) => (typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : '');

/** @param {unknown} v the first sentence of a text, heading marks dropped */
function firstSentence(v) {
  if (typeof v !== 'string') return '';
  const text = v.replace(/^[\s#>*-]+/, '');
  const end = text.search(/[.!?](\s|$)|\n\s*\n/);
  return end < 0 ? text : text.slice(0, end + 1);
}

/**
 * A server's one-line summary as the aggregate gives it to search (the same precedence as
 * `hub/economy/serverSummary.ts`, with no configured description): its serverInfo's
 * description, then title, then the first sentence of its instructions, then a few tool names,
 * cut to 140 characters.
 * @param {{ serverInfo?: Record<string, unknown>; instructions?: unknown; tools: { name: string }[] }} entry
 */
export function catalogSummary(entry) {
  const info = entry.serverInfo ?? {};
  const line = [info.description, info.title, firstSentence(entry.instructions)].map(oneLine).find((t) => t !== '');
  const names = entry.tools.slice(0, 4).map((t) => t.name);
  const text = line || `${entry.tools.length > 4 ? 'tools such as' : 'tools:'} ${names.join(', ')}`;
  return text.length <= MAX_SUMMARY_CHARS ? text : `${text.slice(0, MAX_SUMMARY_CHARS - 1).trimEnd()}…`;
}

/**
 * Every tool of the catalog as an aggregate with the default naming exposes it to search:
 * named `<serverId>__<name>`, with its server's id and summary.
 * @returns {CatalogTool[]}
 */
export function catalogTools() {
  /** @type {CatalogTool[]} */
  const out = [];
  for (const file of readdirSync(CATALOG).sort()) {
    if (!file.endsWith('.json') || file === 'tasks.json') continue;
    const serverId = file.slice(0, -'.json'.length);
    const entry = JSON.parse(readFileSync(join(CATALOG, file), 'utf8'));
    const serverSummary = catalogSummary(entry);
    for (const tool of entry.tools) {
      const name = `${serverId}__${tool.name}`;
      out.push({ name, serverId, tool: { ...tool, name }, serverSummary });
    }
  }
  return out;
}

/** @returns {Task[]} */
export function catalogTasks() {
  return JSON.parse(readFileSync(join(CATALOG, 'tasks.json'), 'utf8')).tasks;
}

/**
 * Recall@k: the share of tasks with at least one of their right tools among the first k
 * results (any one of a task's tools answers it).
 * @param {Index} index
 * @param {Task[]} tasks
 * @param {number[]} ks
 * @returns {{ tasks: number; recall: Record<number, number>; misses: { task: string; got: string[] }[] }}
 */
export function recall(index, tasks, ks = [1, 5]) {
  const depth = Math.max(...ks);
  /** @type {Record<number, number>} */
  const hits = Object.fromEntries(ks.map((k) => [k, 0]));
  /** @type {{ task: string; got: string[] }[]} */
  const misses = [];
  for (const t of tasks) {
    const got = index.search(t.task, depth).map((r) => r.name);
    const right = new Set(t.tools);
    const first = got.findIndex((n) => right.has(n));
    for (const k of ks) if (first >= 0 && first < k) hits[k] += 1;
    if (first < 0) misses.push({ task: t.task, got });
  }
  /** @type {Record<number, number>} */
  const share = Object.fromEntries(ks.map((k) => [k, tasks.length ? hits[k] / tasks.length : 0]));
  return { tasks: tasks.length, recall: share, misses };
}
