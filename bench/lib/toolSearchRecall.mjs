// The tool-search benchmark's data and measure, shared by bench/toolSearch.mjs (which ranks
// with the built bundle file) and tests/proxy/hub/economy/toolSearchRecall.test.ts (which ranks
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

/**
 * Every tool of the catalog as an aggregate with the default naming exposes it to search:
 * named `<serverId>__<name>`, with its server's id and the summary the hub gives it
 * (`serverSummary` of `hub/economy/serverSummary.ts`, handed in by the caller: the test takes
 * the source, the bench compiles it), with no configured description.
 * @param {(src: { initResult?: Record<string, unknown>; toolNames: readonly string[] }) => string} serverSummary
 * @returns {CatalogTool[]}
 */
export function catalogTools(serverSummary) {
  /** @type {CatalogTool[]} */
  const out = [];
  for (const file of readdirSync(CATALOG).sort()) {
    if (!file.endsWith('.json') || file === 'tasks.json') continue;
    const serverId = file.slice(0, -'.json'.length);
    const entry = JSON.parse(readFileSync(join(CATALOG, file), 'utf8'));
    const summary = serverSummary({
      initResult: { serverInfo: entry.serverInfo, instructions: entry.instructions },
      toolNames: entry.tools.map((/** @type {{ name: string }} */ t) => t.name),
    });
    for (const tool of entry.tools) {
      const name = `${serverId}__${tool.name}`;
      out.push({ name, serverId, tool: { ...tool, name }, serverSummary: summary });
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
