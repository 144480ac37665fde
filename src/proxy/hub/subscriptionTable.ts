/**
 * Resource subscriptions when several downstream sessions share one upstream: the one table
 * of who is subscribed to what. Reference-counted per (server, URI): the first session's
 * subscribe goes upstream (a refused one is not counted), later ones are answered locally;
 * the last session's unsubscribe, or its close, releases it upstream. Sessions of either era
 * are counted alike (a 2025 `resources/subscribe`, a 2026 `subscriptions/listen` with
 * `resourceSubscriptions`: hub/listenResources.ts); toward a 2026-07-28 server, which has no
 * `resources/subscribe`, the held URIs are its resource listen (upstream/era/modernResourceListen.ts).
 */
import type { RpcResponse } from '../jsonrpc/jsonRpc.js';
import type { Upstream } from '../upstream/upstream.js';
import type { HubSession } from './sessionHost.js';

const OK: RpcResponse = { jsonrpc: '2.0', id: 0, result: {} };

export class SubscriptionTable {
  /** upstream + uri -> sessions subscribed. */
  private readonly subscribers = new Map<Upstream, Map<string, Set<HubSession>>>();

  has(u: Upstream, uri: string, s: HubSession): boolean {
    return this.subscribers.get(u)?.get(uri)?.has(s) ?? false;
  }

  async subscribe(u: Upstream, uri: string, s: HubSession, params: Record<string, unknown> | undefined): Promise<RpcResponse> {
    let byUri = this.subscribers.get(u);
    if (!byUri) this.subscribers.set(u, (byUri = new Map()));
    const set = byUri.get(uri) ?? new Set();
    const first = set.size === 0;
    set.add(s);
    byUri.set(uri, set);
    if (!first) return OK;
    const modern = u.resourceListen;
    const res = await (modern ? modern.subscribe(uri, u.entry.timeoutMs) : u.forward('resources/subscribe', params, { timeoutMs: u.entry.timeoutMs }));
    if ('error' in res) this.remove(u, uri, s);
    return res;
  }

  async unsubscribe(u: Upstream, uri: string, s: HubSession): Promise<RpcResponse> {
    if (!this.remove(u, uri, s)) return OK;
    const modern = u.resourceListen;
    return modern ? modern.unsubscribe(uri) : u.forward('resources/unsubscribe', { uri }, { timeoutMs: u.entry.timeoutMs });
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
    if (byUri!.size === 0) this.subscribers.delete(u);
    return true;
  }
}
