/**
 * What the bridge keeps for MCP Apps views: each call of a tool with a view (its server, tool,
 * arguments and whole result, before any cut for the agent), in a ring bounded in count and
 * bytes, found by a random key that its activity record carries; and each server's view
 * resources (`ui://`), fetched once with `resources/read`, the mime type checked, bounded in
 * size, the first one seen pinned: a later fetch that differs is a drift, not shown.
 */
import type { Upstream } from '../upstream/upstream.js';
import { randomKey } from '../common/randomKeys.js';
import { APP_MIME_TYPE } from './appsExtension.js';
import type { RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { RoutingSession } from '../hub/sessionContracts.js';
import { tapView, type KeptView } from './viewTap.js';

export type { KeptView } from './viewTap.js';

/** A view's HTML and what its `_meta.ui` asks of the host. */
export interface ViewResource {
  uri: string;
  html: string;
  csp?: Record<string, unknown>;
  permissions?: Record<string, unknown>;
  prefersBorder?: boolean;
}

export type ResourceAnswer = { ok: true; resource: ViewResource } | { ok: false; error: string };

/** Calls kept at most, and their bytes (arguments and result as JSON) at most. */
export const MAX_VIEWS = 100;
export const MAX_VIEW_BYTES = 32 * 1024 * 1024;
/** A view's HTML at most (views are single files; anything larger is refused). */
export const MAX_RESOURCE_BYTES = 4 * 1024 * 1024;

export class AppViewBook {
  private readonly views = new Map<string, KeptView>();
  private bytes = 0;
  /** Per server: each view URI's pinned resource (the first seen) and its fingerprint. */
  private readonly resources = new Map<string, Map<string, { resource: ViewResource; print: string }>>();
  /** Hears of each call with a view as it begins (the bridge tells the app). */
  onView?: (view: KeptView) => void;

  /** routeRequest.ts's hook: taps a call of tool `name` of `u` when it has a view (viewTap.ts). */
  tap(s: RoutingSession, req: RpcRequest, u: Upstream, name: string): void {
    tapView(this, s, req, u, name, this.onView);
  }

  /** A call of `tool` of `server` with `args` began: kept (the oldest dropped past the bounds); its key. */
  begin(view: Omit<KeptView, 'key' | 'bytes' | 'at'>): KeptView {
    const kept: KeptView = { ...view, key: randomKey(12), at: new Date().toISOString(), bytes: 0 };
    this.views.set(kept.key, kept);
    this.resize(kept, jsonBytes(view.arguments));
    return kept;
  }

  /** `kept`'s call was answered with `result`. */
  answered(kept: KeptView, result: Record<string, unknown>): void {
    if (!this.views.has(kept.key)) return;
    kept.result = result;
    this.resize(kept, kept.bytes + jsonBytes(result));
  }

  get(key: string): KeptView | undefined {
    return this.views.get(key);
  }

  private resize(kept: KeptView, bytes: number): void {
    this.bytes += bytes - kept.bytes;
    kept.bytes = bytes;
    for (const [key, v] of this.views) {
      if (this.views.size <= MAX_VIEWS && this.bytes <= MAX_VIEW_BYTES) break;
      this.views.delete(key);
      this.bytes -= v.bytes;
    }
  }

  /** The view resource `uri` of `u`: fetched on first use, then the pinned one (a changed one is refused as a drift). */
  async resource(u: Upstream, uri: string, timeoutMs: number): Promise<ResourceAnswer> {
    const fetched = await readViewResource(u, uri, timeoutMs);
    if (!fetched.ok) return fetched;
    const pins = this.resources.get(u.id) ?? new Map<string, { resource: ViewResource; print: string }>();
    this.resources.set(u.id, pins);
    const print = JSON.stringify(fetched.resource);
    const pinned = pins.get(uri);
    if (!pinned) {
      pins.set(uri, { resource: fetched.resource, print });
      return fetched;
    }
    if (pinned.print !== print)
      return { ok: false, error: `the view ${uri} of server "${u.id}" changed since it was first shown (a drift)` };
    return { ok: true, resource: pinned.resource };
  }

  /** A server was replaced or removed: its pinned views go with it. */
  forget(serverId: string): void {
    this.resources.delete(serverId);
  }
}

function jsonBytes(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v ?? null));
}

/** `resources/read` of `uri` on `u`, checked: one item, the view mime type, text (or base64) HTML within the bound. */
async function readViewResource(u: Upstream, uri: string, timeoutMs: number): Promise<ResourceAnswer> {
  if (!u.isReady) return { ok: false, error: `server "${u.id}" is ${u.state}` };
  const response = await u.forward('resources/read', { uri }, { timeoutMs });
  if ('error' in response) return { ok: false, error: `resources/read ${uri}: ${response.error.message}` };
  const contents = response.result.contents;
  const item = Array.isArray(contents) ? (contents[0] as Record<string, unknown> | undefined) : undefined;
  if (!item || typeof item !== 'object') return { ok: false, error: `resources/read ${uri} returned no content` };
  if (item.mimeType !== APP_MIME_TYPE)
    return { ok: false, error: `the view ${uri} is ${JSON.stringify(item.mimeType)}, not ${APP_MIME_TYPE}` };
  const html =
    typeof item.text === 'string'
      ? item.text
      : typeof item.blob === 'string' && item.blob.length <= (MAX_RESOURCE_BYTES * 4) / 3 + 4
        ? Buffer.from(item.blob, 'base64').toString('utf8')
        : undefined;
  if (html === undefined) return { ok: false, error: `the view ${uri} has no text` };
  if (Buffer.byteLength(html) > MAX_RESOURCE_BYTES)
    return { ok: false, error: `the view ${uri} is larger than ${MAX_RESOURCE_BYTES} bytes` };
  const ui = ((item._meta as Record<string, unknown> | undefined)?.ui ?? {}) as Record<string, unknown>;
  const resource: ViewResource = { uri, html };
  if (isObject(ui.csp)) resource.csp = ui.csp;
  if (isObject(ui.permissions)) resource.permissions = ui.permissions;
  if (typeof ui.prefersBorder === 'boolean') resource.prefersBorder = ui.prefersBorder;
  return { ok: true, resource };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
