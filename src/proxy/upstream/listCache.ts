/**
 * The cached lists of one server (tools, prompts, resources, resource templates), every page
 * fetched, refreshed on `list_changed`. Items are kept as the server sent them; `tools` holds
 * what the tool gate (tool pinning, src/proxy/pinning/) lets through, `listedTools` all of them.
 * A tool name is one tool: when a server lists a name twice, the first one listed is the tool
 * (listed, pinned, called by that name) and the later ones are dropped, with a warning.
 */
import type { Logger } from '../common/logger.js';

export type ListKind = 'tools' | 'prompts' | 'resources';
export type Item = Record<string, unknown>;
type Call = (method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** Upper bound on pages fetched for one list, against a server that never stops paging. */
const MAX_PAGES = 1000;
/** At most this many names are warned of as listed twice, against a server that lists thousands. */
const MAX_WARNED = 100;

export class ListCache {
  tools: Item[] = [];
  prompts: Item[] = [];
  resources: Item[] = [];
  templates: Item[] = [];
  /** The `_meta` of each list's first page, as sent (a single-server route passes it on). */
  meta: Partial<Record<ListKind | 'templates', unknown>> = {};
  /** The tools as the server listed them, before {@link toolGate}. */
  listedTools: Item[] = [];
  /** What of a tool list sessions see (pinning/pinBook.ts); unset: all of it. */
  toolGate?: (tools: Item[]) => Item[] | Promise<Item[]>;

  /** Names already warned of as listed twice. */
  private readonly twice = new Set<string>();

  constructor(
    private readonly call: Call,
    private readonly log?: Logger,
  ) {}

  async refreshAll(capabilities: Record<string, unknown>): Promise<void> {
    await Promise.all((['tools', 'prompts', 'resources'] as const).map((k) => this.refresh(k, capabilities)));
  }

  async refresh(kind: ListKind, capabilities: Record<string, unknown>): Promise<void> {
    if (!capabilities[kind]) return;
    if (kind === 'tools') {
      this.listedTools = this.firstOfEachName(await this.all('tools/list', 'tools', 'tools'));
      this.tools = this.toolGate ? await this.toolGate(this.listedTools) : this.listedTools;
    } else if (kind === 'prompts') this.prompts = await this.all('prompts/list', 'prompts', 'prompts');
    else {
      const [resources, templates] = await Promise.all([
        this.all('resources/list', 'resources', 'resources'),
        this.all('resources/templates/list', 'resourceTemplates', 'templates').catch(() => [] as Item[]),
      ]);
      this.resources = resources;
      this.templates = templates;
    }
  }

  /** Passes the last tool list through the gate again (a drift accepted or rejected, the mode changed). */
  async regate(): Promise<void> {
    if (this.toolGate) this.tools = await this.toolGate(this.listedTools);
  }

  /** `tools` with the first tool of each name only; the names dropped are warned of once. */
  private firstOfEachName(tools: Item[]): Item[] {
    const seen = new Set<string>();
    const out: Item[] = [];
    for (const t of tools) {
      const name = String(t.name);
      if (!seen.has(name)) {
        seen.add(name);
        out.push(t);
      } else if (!this.twice.has(name) && this.twice.size < MAX_WARNED) {
        this.twice.add(name);
        this.log?.warn(
          `tools/list lists tool ${JSON.stringify(name.slice(0, 100))} more than once: the first one listed is the tool, the others are dropped`,
        );
      }
    }
    return out.length === tools.length ? tools : out;
  }

  clear(): void {
    this.tools = [];
    this.listedTools = [];
    this.prompts = [];
    this.resources = [];
    this.templates = [];
    this.meta = {};
  }

  private async all(method: string, field: string, key: ListKind | 'templates'): Promise<Item[]> {
    const out: Item[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await this.call(method, cursor ? { cursor } : undefined);
      const items = res[field];
      if (page === 0) this.meta[key] = res._meta;
      if (Array.isArray(items)) out.push(...(items as Item[]));
      cursor = typeof res.nextCursor === 'string' && res.nextCursor ? res.nextCursor : undefined;
      if (!cursor) break;
    }
    return out;
  }
}
