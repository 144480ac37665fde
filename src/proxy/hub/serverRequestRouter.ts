/**
 * Requests a server sends to its client (sampling, elicitation, roots/list, and the task
 * requests of SEP-1686) when several downstream sessions share one upstream (subscriptions:
 * subscriptionTable.ts).
 *
 * Routing rule for a server-to-client request:
 * 1. When the wire says which of our calls it belongs to, it goes to the session that made
 *    that call: a streamable HTTP upstream sent it on that call's POST response stream (the
 *    transport reports the call's upstream id), or it names a task of that session in
 *    `_meta["io.modelcontextprotocol/related-task"]` (an input-required task's request), or
 *    it carries that call's progress token (`_meta.progressToken` is one of our `qp<n>`
 *    tokens). If that session did not declare the capability, the request is answered as for
 *    no capable client (below): it is never handed to a session that did not cause it.
 * 2. Otherwise (a stdio upstream, a request on the standalone GET stream), the session with a
 *    call in flight on that server goes first (the most recently started call, when several
 *    sessions have one); with none in flight, the most recently active session. With several
 *    sessions calling at once this may pick the wrong one: see docs/cli.md, "Server-to-client
 *    requests with several clients". With no 2025 session's call in flight there, a held call
 *    of a 2026 client takes it (heldInputTable.ts `unlinked`): the one whose turn it is
 *    (askingGate.ts lets one call that may ask run at a time), or the one running; with several
 *    running and none's turn, the request is refused toward the server rather than guessed.
 * The request is sent on the stream of the chosen call (`relatedRequestId`), so streamable
 * HTTP clients see it where a direct server puts it. `roots/list` with no session able to
 * answer gets an empty list; sampling or elicitation with none gets -32601. A session is
 * able when it declared the capability, and for `elicitation/create` the mode (`url` needs
 * `elicitation.url`; form needs `elicitation.form`, or `elicitation: {}`).
 *
 * Tasks, the session being the receiver: a task-augmented sampling or elicitation request
 * goes as is to a session that declared that task augmentation, and the task it creates is
 * bound to it (taskTable.ts); to a session that did not, it goes without its `task` field,
 * as a receiver that does not support it processes it (spec: "MUST process requests of that
 * type normally"), and the server gets the plain result. The server's `tasks/get`,
 * `tasks/result` and `tasks/cancel` go to the session that owns the task; `tasks/list` is the
 * first page of each such session's list, merged. A URL elicitation's
 * `notifications/elicitation/complete` goes back to the session that got the elicitation.
 */
import { ErrorCode, type RequestId, type RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { Upstream } from '../upstream/upstream.js';
import type { HubSession } from './sessionContracts.js';
import { MAX_TASK_ROUTES, RELATED_TASK, type TaskTable } from './tasks/taskTable.js';
import type { HeldInputTable } from '../protocol/crossings/heldInputTable.js';

/** What the router needs from the hub. */
export interface RouterHost {
  readonly tasks: TaskTable<HubSession, Upstream>;
  readonly held: HeldInputTable;
  sessionsFor(u: Upstream): HubSession[];
  progressOwner(u: Upstream, upstreamToken: unknown): { session: HubSession; requestId: RequestId } | undefined;
  /** True when `req` belongs to a 2026 client's task and was kept for it (protocol/crossings/heldTasks.ts). */
  parkTaskInput(u: Upstream, req: RpcRequest): boolean;
}

type Params = Record<string, unknown>;
type MapResult = (r: Params) => Params;

/** The client capability each server-to-client request needs (also used by heldCall.ts and protocol/crossings/inputRounds.ts). */
export const CAPABILITY_OF: Readonly<Record<string, string>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** Whether session capabilities `c` can answer `method` with `params` (see the header). */
export function canAnswer(c: Record<string, unknown>, method: string, params: Params | undefined): boolean {
  const capability = CAPABILITY_OF[method];
  if (!capability) return true;
  const declared = c[capability] as Params | undefined;
  if (declared === undefined) return false;
  if (method !== 'elicitation/create') return true;
  return params?.mode === 'url'
    ? declared.url !== undefined
    : declared.form !== undefined || declared.url === undefined;
}

/** Whether capabilities `c` take `method` augmented with a task. */
function takesTask(c: Record<string, unknown>, method: string): boolean {
  const requests = (c.tasks as { requests?: Record<string, Params | undefined> } | undefined)?.requests;
  return method === 'sampling/createMessage'
    ? !!requests?.sampling?.createMessage
    : method === 'elicitation/create' && !!requests?.elicitation?.create;
}

export class ServerRequestRouter {
  /** upstream id + upstream request id -> the session and the id it got downstream. */
  private readonly routed = new Map<string, { session: HubSession; downstreamId: RequestId; abandon: () => void }>();
  /** upstream id + elicitationId of a URL elicitation -> the session that got it. */
  private readonly elicitations = new Map<string, HubSession>();
  constructor(private readonly hub: RouterHost) {}

  pickSession(u: Upstream, method?: string, params?: Params): HubSession | undefined {
    const sessions = this.hub
      .sessionsFor(u)
      .filter((s) => s.takesServerRequests && (!method || canAnswer(s.clientCapabilities, method, params)));
    let best: { s: HubSession; related: boolean; at: number } | undefined;
    for (const s of sessions) {
      const related = s.hasCallOn(u);
      const at = s.lastActive;
      if (!best || (related && !best.related) || (related === best.related && at >= best.at)) best = { s, related, at };
    }
    return best?.s;
  }

  /** The session and downstream call a request belongs to, when the wire says so. */
  private owner(
    u: Upstream,
    req: RpcRequest,
    relatedRequestId?: RequestId,
  ): { session: HubSession; callId?: RequestId } | undefined {
    if (relatedRequestId !== undefined) {
      for (const session of this.hub.sessionsFor(u)) {
        if (!session.takesServerRequests) continue;
        const callId = session.callWithUpstreamId(u, relatedRequestId);
        if (callId !== undefined) return { session, callId };
      }
    }
    const meta = req.params?._meta as Params | undefined;
    if (meta === undefined) return undefined;
    const taskId = (meta[RELATED_TASK] as Params | undefined)?.taskId;
    const task = typeof taskId === 'string' ? this.hub.tasks.serverTaskOwner(u, taskId) : undefined;
    if (task) return { session: task.session, callId: task.session.relatedCallOn(u) };
    const token = meta.progressToken;
    const route = token === undefined ? undefined : this.hub.progressOwner(u, token);
    return route && route.session.takesServerRequests ? { session: route.session, callId: route.requestId } : undefined;
  }

  route(u: Upstream, req: RpcRequest, relatedRequestId?: RequestId): void {
    if (req.method.startsWith('tasks/')) return this.routeTaskRequest(u, req);
    // A held call of a 2026 client (heldCall.ts) that the wire names takes it as input to ask.
    const held = this.hub.held.byWire(u, relatedRequestId, (req.params?._meta as Params | undefined)?.progressToken);
    if (held) return held.ask(req, true);
    if (req.params?._meta !== undefined && this.hub.parkTaskInput(u, req)) return;
    const owner = this.owner(u, req, relatedRequestId);
    if (
      !owner &&
      this.hub.held.size > 0 &&
      !this.hub.sessionsFor(u).some((s) => s.takesServerRequests && s.hasCallOn(u))
    ) {
      // The wire does not say: a 2025 session's call in flight goes first (as without held calls), then the held
      // call whose turn it is on this server (askingGate.ts), or the one running; never a guess between several.
      const call = this.hub.held.unlinked(u);
      if (call === 'ambiguous') {
        const message = `the proxy cannot tell which of several calls in flight on server "${u.id}" sent ${req.method}, so it reaches none of their clients`;
        return u.respondError(req.id, { code: ErrorCode.InternalError, message });
      }
      if (call) return call.ask(req, false);
    }
    const able = (s: HubSession) => s.takesServerRequests && canAnswer(s.clientCapabilities, req.method, req.params);
    const session = owner
      ? able(owner.session)
        ? owner.session
        : undefined
      : this.pickSession(u, req.method, req.params);
    if (!session) {
      if (req.method === 'roots/list') u.respond(req.id, { roots: [] });
      else
        u.respondError(req.id, {
          code: ErrorCode.MethodNotFound,
          message: `no connected client supports ${req.method}`,
        });
      return;
    }
    let params = req.params;
    let mapResult: MapResult | undefined;
    if (params !== undefined) {
      if (params.task !== undefined) {
        if (takesTask(session.clientCapabilities, req.method)) mapResult = (r) => this.clientTaskCreated(u, session, r);
        else params = withoutTask(params);
      }
      if (params._meta !== undefined) params = exposeRelatedTask(this.hub.tasks, u, params);
      if (params.mode === 'url' && typeof params.elicitationId === 'string')
        this.noteElicitation(u, params.elicitationId, session);
    }
    this.send(u, req, session, params, owner ? owner.callId : session.relatedCallOn(u), mapResult);
  }

  /** A call failed with -32042: the URL elicitations it names complete toward `session`. */
  urlElicitationsRequired(u: Upstream, session: HubSession, data: unknown): void {
    const list = (data as { elicitations?: unknown } | undefined)?.elicitations;
    if (!Array.isArray(list)) return;
    for (const e of list as Params[])
      if (typeof e?.elicitationId === 'string') this.noteElicitation(u, e.elicitationId, session);
  }

  /** `notifications/elicitation/complete` from `u`: to the session that got that elicitation. */
  elicitationComplete(u: Upstream, params: Params): boolean {
    const key = `${u.id}\0${String(params.elicitationId)}`;
    const session = this.elicitations.get(key);
    if (!session) return false;
    this.elicitations.delete(key);
    session.notify('notifications/elicitation/complete', params);
    return true;
  }

  /** The server cancelled one of its requests: tell the session that got it. */
  cancelled(u: Upstream, params: Params): void {
    const key = `${u.id}\0${String(params.requestId)}`;
    const r = this.routed.get(key);
    if (!r) return;
    this.routed.delete(key);
    r.session.notify('notifications/cancelled', { ...params, requestId: r.downstreamId });
    r.abandon();
  }

  /** Forgets what a closed session was routed. */
  dropSession(s: HubSession): void {
    for (const [k, v] of this.elicitations) if (v === s) this.elicitations.delete(k);
  }

  private noteElicitation(u: Upstream, elicitationId: string, session: HubSession): void {
    const key = `${u.id}\0${elicitationId}`;
    this.elicitations.delete(key);
    this.elicitations.set(key, session);
    if (this.elicitations.size > MAX_TASK_ROUTES) this.elicitations.delete(this.elicitations.keys().next().value!);
  }

  private clientTaskCreated(u: Upstream, session: HubSession, r: Params): Params {
    const task = r.task as Params | undefined;
    if (typeof task?.taskId !== 'string') return r;
    const visible = this.hub.tasks.addClientTask(u, session, task.taskId);
    return visible === task.taskId ? r : { ...r, task: { ...task, taskId: visible } };
  }

  /** The server's `tasks/*` to its client, about tasks sessions run for it. */
  private routeTaskRequest(u: Upstream, req: RpcRequest): void {
    if (req.method === 'tasks/list') return void this.listClientTasks(u, req);
    const visible = String(req.params?.taskId ?? '');
    const t = this.hub.tasks.clientTask(u, visible);
    if (!t) return u.respondError(req.id, { code: ErrorCode.InvalidParams, message: `Task not found: ${visible}` });
    if (t.visible === t.taskId) return this.send(u, req, t.session, req.params, t.session.relatedCallOn(u));
    const relabel = (r: Params) => (r.taskId === t.taskId ? { ...r, taskId: t.visible } : r);
    this.send(u, req, t.session, { ...req.params, taskId: t.taskId }, t.session.relatedCallOn(u), relabel);
  }

  private async listClientTasks(u: Upstream, req: RpcRequest): Promise<void> {
    const tasks: Params[] = [];
    for (const [session, own] of this.hub.tasks.clientTasksOn(u)) {
      const res = await session.peer.request('tasks/list', {}, { relatedRequestId: session.relatedCallOn(u) });
      if (!('result' in res) || !Array.isArray(res.result.tasks)) continue;
      for (const task of res.result.tasks as Params[]) {
        const mine = own.find((t) => t.taskId === task?.taskId);
        if (mine) tasks.push(mine.visible === mine.taskId ? task : { ...task, taskId: mine.visible });
      }
    }
    u.respond(req.id, { tasks });
  }

  private send(
    u: Upstream,
    req: RpcRequest,
    session: HubSession,
    params: Params | undefined,
    relatedRequestId: RequestId | undefined,
    mapResult?: MapResult,
  ): void {
    const key = `${u.id}\0${String(req.id)}`;
    void session.peer
      .request(req.method, params, { relatedRequestId }, (h) => {
        this.routed.set(key, {
          session,
          downstreamId: h.id,
          abandon: () => h.abandon({ code: ErrorCode.ConnectionClosed, message: 'cancelled by server' }),
        });
      })
      .then((res) => {
        const wasRouted = this.routed.delete(key);
        if (!wasRouted) return; // cancelled by the server meanwhile
        if ('error' in res) u.respondError(req.id, res.error);
        else u.respond(req.id, mapResult ? mapResult(res.result) : res.result);
      });
  }
}

function withoutTask(params: Params): Params {
  const { task: _task, ...rest } = params;
  return rest;
}

/** A request's related-task metadata with the server's task id replaced by the one its session sees. */
function exposeRelatedTask(tasks: TaskTable<HubSession, Upstream>, u: Upstream, params: Params): Params {
  const meta = params._meta as Params;
  const related = meta[RELATED_TASK] as Params | undefined;
  if (typeof related?.taskId !== 'string') return params;
  const route = tasks.serverTaskOwner(u, related.taskId);
  if (!route || route.exposed === route.taskId) return params;
  return { ...params, _meta: { ...meta, [RELATED_TASK]: { ...related, taskId: route.exposed } } };
}
