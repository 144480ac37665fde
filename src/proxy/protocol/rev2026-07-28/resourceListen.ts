/**
 * Resource subscriptions on a 2026-07-28 server, which has no `resources/subscribe`: the
 * URIs the hub holds on it (hub/subscriptionTable.ts, reference-counted over sessions) are
 * one `subscriptions/listen` with `resourceSubscriptions`, separate from the list-change
 * listen of upstream/revisionConnect.ts. Listens cannot be edited, so a change of the set opens a new
 * listen with the whole set and, once the server acknowledged it, cancels the old one (no
 * update is missed in between; one may come twice). A subscribe is answered when the
 * acknowledgement says whether the server honours that URI; the set's changes within one
 * tick share one listen. `notifications/resources/updated` then arrives as a 2025 one
 * (protocol/rev2026-07-28/envelopedTransport.ts drops the subscription id) and the hub routes it by URI as for a 2025 server.
 */
import type { Logger } from '../../common/logger.js';
import { ErrorCode, type RequestId, type RpcResponse } from '../../jsonrpc/jsonRpc.js';
import type { JsonRpcPeer, PendingHandle } from '../../jsonrpc/jsonRpcPeer.js';

/** A subscribe waiting for the acknowledgement of the listen that carries its URI. */
interface Waiter {
  uri: string;
  resolve: (r: RpcResponse) => void;
  timer: NodeJS.Timeout;
}

interface Listen {
  handle?: PendingHandle;
  waiters: Waiter[];
}

const OK: RpcResponse = { jsonrpc: '2.0', id: 0, result: {} };

export class ResourceListen2026 {
  private readonly uris = new Set<string>();
  /** The acknowledged listen (undefined: none, or the set is empty). */
  private current?: Listen;
  /** Listens sent but not acknowledged yet, by request id. */
  private readonly opening = new Map<RequestId, Listen>();
  private queued: Waiter[] = [];
  private scheduled = false;

  constructor(
    private readonly peer: JsonRpcPeer,
    private readonly log: Logger,
  ) {}

  /** Adds `uri`; resolves when the server acknowledged a listen for it (an error when not honoured or no answer in `timeoutMs`). */
  subscribe(uri: string, timeoutMs: number): Promise<RpcResponse> {
    this.uris.add(uri);
    return new Promise<RpcResponse>((resolve) => {
      const w: Waiter = {
        uri,
        resolve,
        timer: setTimeout(
          () => this.settle(w, `no acknowledgement of subscriptions/listen within ${timeoutMs} ms`),
          timeoutMs,
        ),
      };
      this.queued.push(w);
      this.schedule();
    }).then((r) => {
      // Refused: not held (the hub counts only honoured subscriptions).
      if ('error' in r) void this.unsubscribe(uri);
      return r;
    });
  }

  /** Drops `uri`; answered at once (the listen without it follows). */
  unsubscribe(uri: string): Promise<RpcResponse> {
    if (this.uris.delete(uri)) this.schedule();
    return Promise.resolve(OK);
  }

  /** From protocol/rev2026-07-28/envelopedTransport.ts: a listen of this connection was acknowledged. */
  acknowledged(subscriptionId: unknown, notifications: Record<string, unknown>): void {
    const l = this.opening.get(subscriptionId as RequestId);
    if (!l) return; // not ours, or replaced meanwhile
    const honoured = new Set(
      Array.isArray(notifications.resourceSubscriptions) ? (notifications.resourceSubscriptions as unknown[]) : [],
    );
    // This listen carries the whole set: the acknowledged one and any older one still opening go.
    const waiters = l.waiters.splice(0);
    for (const o of [...this.opening.values()]) {
      if (o === l) break;
      waiters.push(...o.waiters.splice(0));
      this.cancel(o);
    }
    this.opening.delete(subscriptionId as RequestId);
    if (this.current) this.cancel(this.current);
    this.current = l;
    for (const w of waiters)
      this.settle(w, honoured.has(w.uri) ? undefined : `the server does not honour a subscription to ${w.uri}`);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.reopen();
    });
  }

  /** One listen for the whole set, replacing the one before. */
  private reopen(): void {
    const waiters = this.queued.splice(0);
    if (this.uris.size === 0) {
      for (const l of [...this.opening.values()]) this.cancel(l);
      if (this.current) this.cancel(this.current);
      this.current = undefined;
      for (const w of waiters) this.settle(w, 'unsubscribed meanwhile');
      return;
    }
    const l: Listen = { waiters };
    const notifications = { resourceSubscriptions: [...this.uris] };
    void this.peer
      .request('subscriptions/listen', { notifications }, { timeoutMs: 0 }, (h) => {
        l.handle = h;
        this.opening.set(h.id, l);
      })
      .then((res) => this.ended(l, res));
  }

  /** A listen answered or failed: the server ended it, or it was cancelled by us. */
  private ended(l: Listen, res: RpcResponse): void {
    if (l.handle) this.opening.delete(l.handle.id);
    const why = 'error' in res ? res.error.message : 'the server ended the subscription';
    for (const w of l.waiters.splice(0)) this.settle(w, `subscriptions/listen failed: ${why}`);
    if (this.current === l) {
      this.current = undefined;
      this.log.warn(`resource subscriptions ended by the server (${why})`);
    }
  }

  private cancel(l: Listen): void {
    if (!l.handle) return;
    this.opening.delete(l.handle.id);
    if (this.current === l) this.current = undefined;
    void this.peer.notify('notifications/cancelled', {
      requestId: l.handle.id,
      reason: 'resource subscriptions changed',
    });
    l.handle.abandon({ code: ErrorCode.ConnectionClosed, message: 'replaced' });
  }

  private settle(w: Waiter, error: string | undefined): void {
    clearTimeout(w.timer);
    this.queued = this.queued.filter((x) => x !== w);
    w.resolve(
      error === undefined ? OK : { jsonrpc: '2.0', id: 0, error: { code: ErrorCode.InvalidParams, message: error } },
    );
  }
}
