/**
 * UpstreamInbound: what a server sends on its own, as its Upstream handles it. A
 * `list_changed` refreshes that list, then tells the listener; a `ping` is answered here;
 * any other request or notification goes to the listener (a request nobody takes: Method
 * not found).
 *
 * Refreshes of one list are coalesced: while one runs, any number of `list_changed` of that
 * list make one more, started when it ends, so a server that sends thousands costs a few
 * re-lists, and the last list fetched was asked for after the last notice.
 */
import { errorText, type Logger } from '../common/logger.js';
import { ErrorCode, type RequestId, type RpcNotification, type RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { ListCache, ListKind } from './listCache.js';

/** What of its Upstream this needs (an interface, so this file does not import upstream.ts). */
export interface InboundHost {
  readonly lists: ListCache;
  readonly capabilities: Record<string, unknown>;
  respond(id: RequestId, result: Record<string, unknown>): void;
  respondError(id: RequestId, error: { code: number; message: string; data?: unknown }): void;
}

/** The listener's part that hears what the server sends on its own. */
export interface InboundListener<U> {
  listChanged?(u: U, kind: ListKind): void;
  notification?(u: U, n: RpcNotification, relatedRequestId?: RequestId): void;
  request?(u: U, req: RpcRequest, relatedRequestId?: RequestId): void;
}

const LIST_CHANGED: Record<string, ListKind | undefined> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
};

export class UpstreamInbound<U extends InboundHost> {
  /** The lists being refreshed, each with whether a `list_changed` came meanwhile. */
  private readonly refreshing = new Map<ListKind, { again: boolean }>();

  constructor(
    private readonly u: U,
    private readonly listener: InboundListener<U>,
    private readonly log: Logger,
  ) {}

  notification(n: RpcNotification, relatedRequestId?: RequestId): void {
    const kind = LIST_CHANGED[n.method];
    if (kind) return this.listChanged(kind);
    this.listener.notification?.(this.u, n, relatedRequestId);
  }

  private listChanged(kind: ListKind): void {
    const running = this.refreshing.get(kind);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    this.refreshing.set(kind, state);
    void this.refreshWhileChanged(kind, state);
  }

  /** Refreshes `kind`, and again while a `list_changed` of it came during the last refresh. */
  private async refreshWhileChanged(kind: ListKind, state: { again: boolean }): Promise<void> {
    try {
      do {
        state.again = false;
        try {
          await this.u.lists.refresh(kind, this.u.capabilities);
          this.listener.listChanged?.(this.u, kind);
        } catch (err) {
          this.log.warn(`refreshing ${kind} failed: ${errorText(err)}`);
        }
      } while (state.again);
    } finally {
      this.refreshing.delete(kind);
    }
  }

  request(req: RpcRequest, relatedRequestId?: RequestId): void {
    if (req.method === 'ping') {
      this.u.respond(req.id, {});
      return;
    }
    if (this.listener.request) this.listener.request(this.u, req, relatedRequestId);
    else this.u.respondError(req.id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${req.method}` });
  }
}
