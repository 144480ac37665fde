/**
 * The `subscriptions/listen` requests (MCP 2026-07-28) of one modern downstream session:
 * each is acknowledged first (`notifications/subscriptions/acknowledged` with the subset the
 * proxy honours: the three list changes, and the `resourceSubscriptions` the owning servers
 * accepted: listenResources.ts), then gets `notifications/<kind>/list_changed` whenever the
 * hub's merged list of that kind changes and `notifications/resources/updated` for its URIs,
 * each tagged with its `subscriptionId` (the listen request's id). It stays open until the
 * client cancels it (`notifications/cancelled` on stdio, closing the stream on HTTP) or the
 * session ends; a cancelled listen is not answered, as for any cancel, and releases its URIs.
 */
import type { RequestId, RpcRequest } from '../../jsonrpc/jsonRpc.js';
import type { ListKind } from '../../upstream/listCache.js';
import { resourceHolder, type ResourceHolder } from './listenResources.js';
import type { RoutingSession, SessionHost } from '../../hub/sessionContracts.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const FLAGS: Record<string, ListKind> = {
  toolsListChanged: 'tools',
  promptsListChanged: 'prompts',
  resourcesListChanged: 'resources',
};
/** Bound on the URIs of one listen. */
const MAX_URIS = 1_000;

type Notify = (method: string, params: Record<string, unknown>, relatedRequestId?: RequestId) => void;
interface Open {
  kinds: Set<ListKind>;
  uris: Set<string>;
  end: () => void;
}

export class ListenSet {
  private readonly open = new Map<RequestId, Open>();
  private readonly resources?: ResourceHolder;

  /** With `hub` and `session`, resource subscriptions are held for the session (listenResources.ts). */
  constructor(
    private readonly notify: Notify,
    hub?: SessionHost,
    session?: RoutingSession,
  ) {
    if (hub && session) this.resources = resourceHolder(hub, session);
  }

  /** Acknowledges `req` (with `extra` honoured, e.g. task ids: protocol/rev2026-07-28/taskListen.ts) and resolves when it is cancelled or the session ends. */
  async listen(req: RpcRequest, extra: Record<string, unknown> = {}): Promise<void> {
    const asked = (req.params?.notifications as Record<string, unknown> | undefined) ?? {};
    const kinds = new Set<ListKind>();
    const honoured: Record<string, unknown> = {};
    for (const [flag, kind] of Object.entries(FLAGS)) {
      if (asked[flag] === true) {
        kinds.add(kind);
        honoured[flag] = true;
      }
    }
    let end!: () => void;
    const ended = new Promise<void>((r) => (end = r));
    const l: Open = { kinds, uris: new Set(), end };
    // Registered first, so a cancel while the servers answer ends it (and releases what it got).
    this.open.set(req.id, l);
    const wanted = Array.isArray(asked.resourceSubscriptions)
      ? [...new Set(asked.resourceSubscriptions.filter((u) => typeof u === 'string'))]
      : [];
    if (this.resources && wanted.length > 0) {
      const held = await Promise.all(
        wanted.slice(0, MAX_URIS).map(async (uri) => ((await this.resources!.hold(uri)) ? uri : undefined)),
      );
      for (const uri of held) if (uri !== undefined) l.uris.add(uri);
      if (this.open.get(req.id) !== l) {
        for (const uri of l.uris) this.resources.release(uri);
        return;
      }
      if (l.uris.size > 0) honoured.resourceSubscriptions = [...l.uris];
    }
    this.notify(
      'notifications/subscriptions/acknowledged',
      { _meta: { [SUBSCRIPTION_ID]: req.id }, notifications: { ...honoured, ...extra } },
      req.id,
    );
    return ended;
  }

  changed(kind: ListKind): void {
    for (const [id, l] of this.open)
      if (l.kinds.has(kind))
        this.notify(`notifications/${kind}/list_changed`, { _meta: { [SUBSCRIPTION_ID]: id } }, id);
  }

  /** A server's `notifications/resources/updated`: to each listen that asked for its URI. */
  resourceUpdated(params: Record<string, unknown> | undefined): void {
    const uri = params?.uri;
    if (typeof uri !== 'string') return;
    for (const [id, l] of this.open) {
      if (l.uris.has(uri))
        this.notify(
          'notifications/resources/updated',
          { ...params, _meta: { ...(params!._meta as object), [SUBSCRIPTION_ID]: id } },
          id,
        );
    }
  }

  /** Ends the listen `id`; false when `id` is not one. */
  cancel(id: RequestId): boolean {
    const l = this.open.get(id);
    if (!l) return false;
    this.open.delete(id);
    for (const uri of l.uris) this.resources?.release(uri);
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
