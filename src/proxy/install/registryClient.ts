/**
 * The MCP Registry API v0.1, read only: search with cursor paging (`GET /v0.1/servers`) and
 * one server's versions (`GET /v0.1/servers/{name}/versions`). Every `server` in an answer is
 * checked against the server.json schema, and a server's versions must all carry the name
 * asked for; an answer of another shape is refused whole. Redirects stay on the registry's
 * origin (boundedFetch.ts).
 */
import { boundedGet, type FetchLimits } from './boundedFetch.js';
import { InstallError } from './installError.js';
import { checkServerJson, type ServerJson } from './serverJson.js';

export const REGISTRY_TIMEOUT_MS = 8_000;
export const REGISTRY_MAX_BYTES = 4 * 1024 * 1024;
/** The most servers one page asks for. */
export const MAX_PAGE = 100;

export interface RegistryEntry {
  server: ServerJson;
  /** The registry's own facts (`io.modelcontextprotocol.registry/official`), when given. */
  official?: { status?: string; publishedAt?: string; updatedAt?: string; isLatest?: boolean };
}

export interface RegistryPage {
  servers: RegistryEntry[];
  /** The cursor of the next page; undefined on the last. */
  nextCursor?: string;
}

const OFFICIAL = 'io.modelcontextprotocol.registry/official';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class RegistryClient {
  constructor(
    readonly baseUrl: string,
    private readonly limits: FetchLimits = { timeoutMs: REGISTRY_TIMEOUT_MS, maxBytes: REGISTRY_MAX_BYTES },
  ) {}

  /** One page of servers matching `search` (the latest version of each). */
  async search(o: { search?: string; cursor?: string; limit?: number } = {}): Promise<RegistryPage> {
    const url = new URL(`${this.baseUrl}/v0.1/servers`);
    if (o.search) url.searchParams.set('search', o.search);
    if (o.cursor) url.searchParams.set('cursor', o.cursor);
    url.searchParams.set('limit', String(Math.max(1, Math.min(MAX_PAGE, Math.trunc(o.limit ?? 30)))));
    if (!o.cursor) url.searchParams.set('version', 'latest');
    return this.list(url.href);
  }

  /** Every published version of the server `name`. @throws InstallError when an answer names another server. */
  async versions(name: string): Promise<RegistryEntry[]> {
    const page = await this.list(`${this.baseUrl}/v0.1/servers/${encodeURIComponent(name)}/versions`);
    const other = page.servers.find((e) => e.server.name !== name);
    if (other)
      throw new InstallError(
        `the registry ${this.baseUrl} answered ${JSON.stringify(other.server.name)} when asked for ${JSON.stringify(name)}: refused`,
        502,
      );
    return page.servers;
  }

  private async list(url: string): Promise<RegistryPage> {
    const body = await boundedGet(url, `the registry ${this.baseUrl}`, this.limits);
    let doc: unknown;
    try {
      doc = JSON.parse(body.toString('utf8'));
    } catch {
      throw new InstallError(`the registry ${this.baseUrl} did not answer JSON`, 502);
    }
    if (!isObject(doc) || !Array.isArray(doc.servers))
      throw new InstallError(`the registry ${this.baseUrl} answered without a "servers" list`, 502);
    const servers = doc.servers.map((item, i): RegistryEntry => {
      if (!isObject(item)) throw new InstallError(`the registry's servers[${i}] is not an object`, 502);
      const server = checkServerJson(item.server, `the registry's servers[${i}]`);
      const meta = isObject(item._meta) ? item._meta[OFFICIAL] : undefined;
      return isObject(meta) ? { server, official: meta as RegistryEntry['official'] } : { server };
    });
    const metadata = isObject(doc.metadata) ? doc.metadata : {};
    const next =
      typeof metadata.nextCursor === 'string' && metadata.nextCursor !== '' ? metadata.nextCursor : undefined;
    return next === undefined ? { servers } : { servers, nextCursor: next };
  }
}
