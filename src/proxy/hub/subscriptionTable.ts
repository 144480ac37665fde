/**
 * Resource subscriptions when several downstream sessions share one upstream: the one table
 * of who is subscribed to what. Reference-counted per (server, URI): the first session's
 * subscribe goes upstream (a refused one is not counted), later ones are answered locally;
 * the last session's unsubscribe, or its close, releases it upstream; when the server comes
 * back on a new connection (restart, reconnect), the held URIs are asked for again. Sessions of either era
 * are counted alike (a 2025 `resources/subscribe`, a 2026 `subscriptions/listen` with
 * `resourceSubscriptions`: hub/listenResources.ts); toward a 2026-07-28 server, which has no
 * `resources/subscribe`, the held URIs are its resource listen (protocol/rev2026-07-28/resourceListen.ts),
 * and one that does not declare `resources.subscribe` is not asked (-32601 at once).
 */
import { ErrorCode, type RpcResponse } from '../jsonrpc/jsonRpc.js';
import type { Upstream } from '../upstream/upstream.js';
import type { HubSession } from './sessionContracts.js';

const OK: RpcResponse = { jsonrpc: '2.0', id: 0, result: {} };
const notOffered = (u: Upstream): RpcResponse => ({
  jsonrpc: '2.0',
  id: 0,
  error: { code: ErrorCode.MethodNotFound, message: `server "${u.id}" does not offer resource subscriptions` },
});

export class SubscriptionTable {
  /** upstream + uri -> sessions subscribed. */
  private readonly subscribers = new Map<Upstream, Map<string, Set<HubSession>>>();
  /** The connection (its readyAt) each upstream's held URIs were last asked on. */
  private readonly askedOn = new Map<Upstream, number | undefined>();

  has(u: Upstream, uri: string, s: HubSession): boolean {
    return this.subscribers.get(u)?.get(uri)?.has(s) ?? false;
  }

  async subscribe(
    u: Upstream,
    uri: string,
    s: HubSession,
    params: Record<string, unknown> | undefined,
  ): Promise<RpcResponse> {
    let byUri = this.subscribers.get(u);
    if (!byUri) this.subscribers.set(u, (byUri = new Map()));
    const set = byUri.get(uri) ?? new Set();
    const first = set.size === 0;
    set.add(s);
    byUri.set(uri, set);
    if (!first) return OK;
    if (byUri.size === 1) this.askedOn.set(u, u.readyAt?.getTime());
    const res = await this.ask(u, uri, params);
    if ('error' in res) this.remove(u, uri, s);
    return res;
  }

  /**
   * `u` is ready on a new connection (restarted, reconnected, perhaps in another era): the
   * server holds none of the subscriptions, so each held URI is asked for again.
   */
  renew(u: Upstream): void {
    const byUri = this.subscribers.get(u);
    const at = u.readyAt?.getTime();
    if (!byUri || this.askedOn.get(u) === at) return;
    this.askedOn.set(u, at);
    for (const uri of byUri.keys()) void this.ask(u, uri, { uri });
  }

  private ask(u: Upstream, uri: string, params: Record<string, unknown> | undefined): Promise<RpcResponse> {
    const modern = u.resourceListen;
    if (!modern) return u.forward('resources/subscribe', params, { timeoutMs: u.entry.timeoutMs });
    // A 2026 server honours resourceSubscriptions only with the capability: refused at once, as
    // a 2025 server without it answers, rather than a listen that cannot be acknowledged.
    if (!(u.capabilities.resources as { subscribe?: unknown } | undefined)?.subscribe)
      return Promise.resolve(notOffered(u));
    return modern.subscribe(uri, u.entry.timeoutMs);
  }

  async unsubscribe(u: Upstream, uri: string, s: HubSession): Promise<RpcResponse> {
    if (!this.remove(u, uri, s)) return OK;
    const modern = u.resourceListen;
    return modern
      ? modern.unsubscribe(uri)
      : u.forward('resources/unsubscribe', { uri }, { timeoutMs: u.entry.timeoutMs });
  }

  /** Drops every subscription of `s`, releasing upstream those it held last. */
  releaseAll(s: HubSession): void {
    for (const [u, byUri] of [...this.subscribers]) {
      for (const [uri, set] of [...byUri]) if (set.has(s)) void this.unsubscribe(u, uri, s);
    }
  }

  /** Removes `s`; true when it was the last subscriber of `uri` on `u`. */
  private remove(u: Upstream, uri: string, s: HubSession): boolean {
    const byUri = this.subscribers.get(u);
    const set = byUri?.get(uri);
    if (!set) return false;
    set.delete(s);
    if (set.size > 0) return false;
    byUri!.delete(uri);
    if (byUri!.size === 0) {
      this.subscribers.delete(u);
      this.askedOn.delete(u);
    }
    return true;
  }
}
