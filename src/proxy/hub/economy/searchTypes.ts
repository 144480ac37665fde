/**
 * What tool search indexes and answers: a tool as an aggregate session calls it, with the
 * server it belongs to. toolSearch.ts builds the index; the exposure code feeds and asks it.
 */
import type { Item } from '../../upstream/listCache.js';

export interface SearchableTool {
  /** The name the session calls it by (namespaced in an aggregate). */
  readonly name: string;
  readonly serverId: string;
  /** The definition as the session sees it, `name` included. */
  readonly tool: Item;
  /** One line on what the server is for: its configured description, its serverInfo, or its instructions. */
  readonly serverSummary?: string;
}

export interface ToolIndex {
  /** The best matches for `query`, best first, at most `limit`; none for a query with no known word. */
  search(query: string, limit: number): SearchableTool[];
}
