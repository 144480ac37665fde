/**
 * Requests a server sends to its client (sampling, elicitation, roots/list) when several
 * downstream sessions share one upstream (subscriptions: subscriptionTable.ts).
 *
 * Routing rule for a server-to-client request:
 * 1. When the wire says which of our calls it belongs to, it goes to the session that made
 *    that call: a streamable HTTP upstream sent it on that call's POST response stream (the
 *    transport reports the call's upstream id), or it carries that call's progress token
 *    (`_meta.progressToken` is one of our `qp<n>` tokens). If that session did not declare
 *    the capability, the request is answered as for no capable client (below): it is never
 *    handed to a session that did not cause it.
 * 2. Otherwise (a stdio upstream, a request on the standalone GET stream), the session with a
 *    call in flight on that server goes first (the most recently started call, when several
 *    sessions have one); with none in flight, the most recently active session. With several
 *    sessions calling at once this may pick the wrong one: see README "Server-to-client
 *    requests with several clients".
 * The request is sent on the stream of the chosen call (`relatedRequestId`), so streamable
 * HTTP clients see it where a direct server puts it. `roots/list` with no session able to
 * answer gets an empty list; sampling or elicitation with none gets -32601.
 */
import { ErrorCode, type RequestId, type RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { Upstream } from '../upstream/upstream.js';
import type { HubSession } from './sessionHost.js';

/** What the router needs from the hub. */
export interface RouterHost {
  sessionsFor(u: Upstream): HubSession[];
  progressOwner(u: Upstream, upstreamToken: unknown): { session: HubSession; requestId: RequestId } | undefined;
}

const CAPABILITY_OF: Record<string, string> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

export class ServerRequestRouter {
  /** upstream id + upstream request id -> the session and the id it got downstream. */
  private readonly routed = new Map<string, { session: HubSession; downstreamId: RequestId; abandon: () => void }>();
  constructor(private readonly hub: RouterHost) {}

  pickSession(u: Upstream, capability?: string): HubSession | undefined {
    const sessions = this.hub.sessionsFor(u).filter((s) => !capability || s.clientCapabilities[capability] !== undefined);
    let best: { s: HubSession; related: boolean; at: number } | undefined;
    for (const s of sessions) {
      const related = s.hasCallOn(u);
      const at = s.lastActive;
      if (!best || (related && !best.related) || (related === best.related && at >= best.at)) best = { s, related, at };
    }
    return best?.s;
  }

  /** The session and downstream call a request belongs to, when the wire says so. */
  private owner(u: Upstream, req: RpcRequest, relatedRequestId?: RequestId): { session: HubSession; callId: RequestId } | undefined {
    if (relatedRequestId !== undefined) {
      for (const session of this.hub.sessionsFor(u)) {
        const callId = session.callWithUpstreamId(u, relatedRequestId);
        if (callId !== undefined) return { session, callId };
      }
    }
    const token = (req.params?._meta as Record<string, unknown> | undefined)?.progressToken;
    const route = token === undefined ? undefined : this.hub.progressOwner(u, token);
    return route && { session: route.session, callId: route.requestId };
  }

  route(u: Upstream, req: RpcRequest, relatedRequestId?: RequestId): void {
    const capability = CAPABILITY_OF[req.method];
    const owner = this.owner(u, req, relatedRequestId);
    const capable = (s: HubSession) => !capability || s.clientCapabilities[capability] !== undefined;
    const session = owner ? (capable(owner.session) ? owner.session : undefined) : this.pickSession(u, capability);
    if (!session) {
      if (req.method === 'roots/list') u.respond(req.id, { roots: [] });
      else u.respondError(req.id, { code: ErrorCode.MethodNotFound, message: `no connected client supports ${req.method}` });
      return;
    }
    const key = `${u.id}\0${String(req.id)}`;
    void session.peer
      .request(req.method, req.params, { relatedRequestId: owner ? owner.callId : session.relatedCallOn(u) }, (h) => {
        this.routed.set(key, { session, downstreamId: h.id, abandon: () => h.abandon({ code: ErrorCode.ConnectionClosed, message: 'cancelled by server' }) });
      })
      .then((res) => {
        const wasRouted = this.routed.delete(key);
        if (!wasRouted) return; // cancelled by the server meanwhile
        if ('error' in res) u.respondError(req.id, res.error);
        else u.respond(req.id, res.result);
      });
  }

  /** The server cancelled one of its requests: tell the session that got it. */
  cancelled(u: Upstream, params: Record<string, unknown>): void {
    const key = `${u.id}\0${String(params.requestId)}`;
    const r = this.routed.get(key);
    if (!r) return;
    this.routed.delete(key);
    r.session.notify('notifications/cancelled', { ...params, requestId: r.downstreamId });
    r.abandon();
  }
}
