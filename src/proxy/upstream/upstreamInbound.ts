/**
 * UpstreamInbound: what a server sends on its own, as its Upstream handles it. A
 * `list_changed` refreshes that list, then tells the listener; a `ping` is answered here;
 * any other request or notification goes to the listener (a request nobody takes: Method
 * not found).
 */
import { errorText, type Logger } from '../common/logger.js';
import { ErrorCode, type RequestId, type RpcNotification, type RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { ListKind } from './listCache.js';
import type { Upstream, UpstreamListener } from './upstream.js';

const LIST_CHANGED: Record<string, ListKind | undefined> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
};

export class UpstreamInbound {
  constructor(
    private readonly u: Upstream,
    private readonly listener: UpstreamListener,
    private readonly log: Logger,
  ) {}

  notification(n: RpcNotification): void {
    const kind = LIST_CHANGED[n.method];
    if (kind) {
      this.u.lists
        .refresh(kind, this.u.capabilities)
        .then(() => this.listener.listChanged?.(this.u, kind))
        .catch((err) => this.log.warn(`refreshing ${kind} failed: ${errorText(err)}`));
      return;
    }
    this.listener.notification?.(this.u, n);
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
