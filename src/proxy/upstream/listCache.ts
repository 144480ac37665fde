/**
 * The cached lists of one server (tools, prompts, resources, resource templates), every page
 * fetched, refreshed on `list_changed`. Items are kept as the server sent them; `tools` holds
 * what the tool gate (tool pinning, src/proxy/pinning/) lets through, `listedTools` all of them.
 */
export type ListKind = 'tools' | 'prompts' | 'resources';
export type Item = Record<string, unknown>;
type Call = (method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** Upper bound on pages fetched for one list, against a server that never stops paging. */
const MAX_PAGES = 1000;

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

  constructor(private readonly call: Call) {}

  async refreshAll(capabilities: Record<string, unknown>): Promise<void> {
    await Promise.all((['tools', 'prompts', 'resources'] as const).map((k) => this.refresh(k, capabilities)));
  }

  async refresh(kind: ListKind, capabilities: Record<string, unknown>): Promise<void> {
    if (!capabilities[kind]) return;
    if (kind === 'tools') {
      this.listedTools = await this.all('tools/list', 'tools', 'tools');
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
