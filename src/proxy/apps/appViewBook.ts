/**
 * What the bridge keeps for MCP Apps views: each call of a tool with a view (its server, tool,
 * arguments and whole result, before any cut for the agent), in a ring bounded in count and
 * bytes, found by a random key that its activity record carries; and each server's view
 * resources (`ui://`), fetched once with `resources/read`, the mime type checked, bounded in
 * size, and checked against its pin on disk (viewPins.ts, kept like the tool pins, per launch):
 * a resource that differs from the one first shown is a drift, not shown until the user accepts
 * it (under the server's pinning `block`; `warn` shows it, `off` pins nothing).
 */
import type { Upstream } from '../upstream/upstream.js';
import { randomKey } from '../common/randomKeys.js';
import { APP_MIME_TYPE } from './appsExtension.js';
import type { RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { RoutingSession } from '../hub/sessionContracts.js';
import { tapView, type KeptView } from './viewTap.js';
import type { PinningMode } from '../../shared/status.js';
import type { ViewDrift, ViewPins } from './viewPins.js';

export type { KeptView } from './viewTap.js';

/** A view's HTML and what its `_meta.ui` asks of the host. */
export interface ViewResource {
  uri: string;
  html: string;
  csp?: Record<string, unknown>;
  permissions?: Record<string, unknown>;
  prefersBorder?: boolean;
}

export type ResourceAnswer =
  { ok: true; resource: ViewResource; drift?: ViewDrift } | { ok: false; error: string; drift?: ViewDrift };

/** Calls kept at most, and their bytes (arguments and result as JSON) at most. */
export const MAX_VIEWS = 100;
export const MAX_VIEW_BYTES = 32 * 1024 * 1024;
/** A view's HTML at most (views are single files; anything larger is refused). */
export const MAX_RESOURCE_BYTES = 4 * 1024 * 1024;

export class AppViewBook {
  private readonly views = new Map<string, KeptView>();
  private bytes = 0;
  /** Hears of each call with a view as it begins (the bridge tells the app). */
  onView?: (view: KeptView) => void;

  constructor(
    /** The view pins (none: nothing pinned, as in a hub without tool pins). */
    private readonly pins?: ViewPins,
    /** A server's pinning (pinning/pinBook.ts `modeOf`). */
    private readonly modeOf: (serverId: string) => PinningMode = () => 'block',
  ) {}

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

  /** The view resource `uri` of `u`, checked against its pin (a drift is refused under `block`). */
  async resource(u: Upstream, uri: string, timeoutMs: number): Promise<ResourceAnswer> {
    const fetched = await readViewResource(u, uri, timeoutMs);
    const mode = this.modeOf(u.id);
    if (!fetched.ok || !this.pins || mode === 'off') return fetched;
    const pinned = this.pins.check(u.entry, uri, fetched.resource);
    if (pinned.ok) return fetched;
    if (mode === 'warn' && pinned.drift) return { ...fetched, drift: pinned.drift };
    return pinned;
  }

  /** The user accepted view `uri` of `u` as `hash` (a drift's): it is pinned. An error, or undefined. */
  accept(u: Upstream, uri: string, hash: string): string | undefined {
    if (!this.pins) return 'view pinning is off';
    return this.pins.accept(u.entry, uri, hash);
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
