/**
 * UpstreamInbound: what a server sends on its own, as its Upstream handles it. A
 * `list_changed` refreshes that list, then tells the listener; a `ping` is answered here;
 * any other request or notification goes to the listener (a request nobody takes: Method
 * not found).
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
  constructor(
    private readonly u: U,
    private readonly listener: InboundListener<U>,
    private readonly log: Logger,
  ) {}

  notification(n: RpcNotification, relatedRequestId?: RequestId): void {
    const kind = LIST_CHANGED[n.method];
    if (kind) {
      this.u.lists
        .refresh(kind, this.u.capabilities)
        .then(() => this.listener.listChanged?.(this.u, kind))
        .catch((err) => this.log.warn(`refreshing ${kind} failed: ${errorText(err)}`));
      return;
    }
    this.listener.notification?.(this.u, n, relatedRequestId);
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
