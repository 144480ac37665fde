/**
 * The `subscriptions/listen` requests (MCP 2026-07-28) of one modern downstream session:
 * each is acknowledged first (`notifications/subscriptions/acknowledged` with the subset the
 * proxy honours: the three list changes; resource subscriptions are not relayed yet), then
 * gets `notifications/<kind>/list_changed` tagged with its `subscriptionId` (the listen
 * request's id) whenever the hub's merged list of that kind changes. It stays open until the
 * client cancels it (`notifications/cancelled` on stdio, closing the stream on HTTP) or the
 * session ends; a cancelled listen is not answered, as for any cancel.
 */
import type { RequestId, RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { ListKind } from '../upstream/listCache.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const FLAGS: Record<string, ListKind> = { toolsListChanged: 'tools', promptsListChanged: 'prompts', resourcesListChanged: 'resources' };

type Notify = (method: string, params: Record<string, unknown>, relatedRequestId?: RequestId) => void;

export class ListenSet {
  private readonly open = new Map<RequestId, { kinds: Set<ListKind>; end: () => void }>();

  constructor(private readonly notify: Notify) {}

  /** Acknowledges `req` (with `extra` honoured, e.g. task ids: taskEraListen.ts) and resolves when it is cancelled or the session ends. */
  listen(req: RpcRequest, extra: Record<string, unknown> = {}): Promise<void> {
    const asked = (req.params?.notifications as Record<string, unknown> | undefined) ?? {};
    const kinds = new Set<ListKind>();
    const honoured: Record<string, boolean> = {};
    for (const [flag, kind] of Object.entries(FLAGS)) {
      if (asked[flag] === true) {
        kinds.add(kind);
        honoured[flag] = true;
      }
    }
    this.notify('notifications/subscriptions/acknowledged', { _meta: { [SUBSCRIPTION_ID]: req.id }, notifications: { ...honoured, ...extra } }, req.id);
    return new Promise<void>((end) => this.open.set(req.id, { kinds, end }));
  }

  changed(kind: ListKind): void {
    for (const [id, l] of this.open) if (l.kinds.has(kind)) this.notify(`notifications/${kind}/list_changed`, { _meta: { [SUBSCRIPTION_ID]: id } }, id);
  }

  /** Ends the listen `id`; false when `id` is not one. */
  cancel(id: RequestId): boolean {
    const l = this.open.get(id);
    if (!l) return false;
    this.open.delete(id);
    l.end();
    return true;
  }

  /** Ends every listen; true when there was one. */
  closeAll(): boolean {
    const had = this.open.size > 0;
    for (const id of [...this.open.keys()]) this.cancel(id);
    return had;
  }
}
