/**
 * One downstream MCP session (the agent's stdio connection, or one HTTP session of the
 * bridge). Lists are answered from the hub's cache; calls are forwarded to the owning
 * upstream (found by routeRequest.ts) with only the id, the name and the progress token
 * rewritten.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JsonRpcPeer } from '../jsonrpc/jsonRpcPeer.js';
import {
  ErrorCode,
  type RequestId,
  type RpcErrorObject,
  type RpcNotification,
  type RpcRequest,
} from '../jsonrpc/jsonRpc.js';
import type { Upstream } from '../upstream/upstream.js';
import type { InFlight, SessionHost, SessionScope } from './sessionContracts.js';
import type { ListKind } from '../upstream/listCache.js';
import { SessionQueueBound } from './sessionQueueBound.js';
import { routeRequest } from './routeRequest.js';
import { initializeResult } from './initializeResult.js';
import { answerDiscover } from '../protocol/rev2026-07-28/discover.js';
import { ListChangeNotices } from './listChangeNotices.js';
import { levelToServer } from '../protocol/rev2025-11-25/setLevel.js';
import type { CodecSession, SessionCodec } from '../protocol/sessionCodec.js';
import { SESSION_CODEC_2025 } from '../protocol/rev2025-11-25/sessionCodec2025.js';
import { clientNameOf, clientVersionOf } from '../protocol/clientInfo.js';
import type { FoundTools } from './economy/foundTools.js';
import { resultCapOf, sizeOverCap } from './economy/resultCap.js';
import type { ResultStore } from './economy/resultStore.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../common/messageLimits.js';
import type { ActiveCall } from '../activity/activityRecorder.js';
import type { ActivityApp } from '../../shared/activity.js';
import { wireBytesOf } from '../common/wireBytes.js';

/** The list methods, answered from the hub's merged cache: the list kind and the result field. */
export const LIST_METHODS: Record<string, { kind: ListKind | 'templates'; field: string }> = {
  'tools/list': { kind: 'tools', field: 'tools' },
  'prompts/list': { kind: 'prompts', field: 'prompts' },
  'resources/list': { kind: 'resources', field: 'resources' },
  'resources/templates/list': { kind: 'templates', field: 'resourceTemplates' },
};

/** How long a session whose client closed its input keeps finishing received requests. */
export const DRAIN_ON_EOF_MS = 10_000;

let sessionCount = 0;

export class DownstreamSession implements CodecSession {
  readonly peer: JsonRpcPeer;
  /** This process's count of sessions when this one began: how the status names it. */
  readonly serial = ++sessionCount;
  readonly startedAt = Date.now();
  /** The client's own name (`clientInfo.name`), once it said it. */
  clientName?: string;
  /** Its `clientInfo.version`, likewise. */
  clientVersion?: string;
  /** In aggregate scope, the tools this session found by search (economy/foundTools.ts), from its first search. */
  found?: FoundTools;
  onclosed?: () => void;
  clientCapabilities: Record<string, unknown> = {};
  lastActive = Date.now();
  /** A 2025 client's `logging/setLevel` (sent per request to 2026 servers: protocol/rev2025-11-25/setLevel.ts). */
  logLevel?: string;
  /** The session's protocol revision: 2025-11-25 until a request chooses 2026-07-28 (protocol/codecChoice.ts). */
  codec: SessionCodec = SESSION_CODEC_2025;
  private initialized = false;
  /** Settles once a pending `initialize` was answered (undefined otherwise). */
  private initializing?: Promise<void>;
  /** This session's calls forwarded to servers (held calls put theirs here too: heldCall.ts). */
  readonly inflight = new Map<RequestId, InFlight>();
  private readonly notices: ListChangeNotices;
  /** Requests being handled (including those waiting for readiness), by id, until answered. */
  private readonly unanswered = new Set<RequestId>();
  /** Requests cancelled before they were forwarded (still waiting for readiness): never sent. */
  private readonly cancelledEarly = new Set<RequestId>();
  /** What this session has queued toward each upstream (see sessionQueueBound.ts). */
  private readonly queue: SessionQueueBound<Upstream>;
  private drained?: () => void;
  /** Calls whose result is cut to a cap, with that cap (economy/resultCap.ts): an aggregate's tool results. */
  private resultCaps?: Map<RequestId, number>;
  /** The full results of this session's cut ones (economy/resultStore.ts), made at the first cut. */
  private store?: ResultStore;
  private storeLoading?: Promise<ResultStore>;
  private closing = false;
  private closed = false;
  /** Calls of tools with an MCP Apps view: who gets each whole result (apps/viewTap.ts). */
  private viewTaps?: Map<RequestId, (result: Record<string, unknown>) => void>;
  /** Requests being recorded (activity/), by id, from the first one the hub records. */
  private calls?: Map<RequestId, ActiveCall>;

  constructor(
    private readonly hub: SessionHost,
    transport: Transport,
    readonly scope: SessionScope,
  ) {
    this.peer = new JsonRpcPeer(transport);
    this.queue = new SessionQueueBound(hub.logger);
    this.notices = new ListChangeNotices(hub.listVersion, (m) => this.notify(m));
    this.peer.onrequest = (req) => {
      // A second request under an id still in flight is refused, as a careful server does:
      // its answer and a cancel could not tell the two apart.
      if (this.unanswered.has(req.id)) {
        void this.peer.respondError(req.id, {
          code: ErrorCode.InvalidRequest,
          message: `Invalid Request: id ${JSON.stringify(req.id)} is already in use by a request in flight`,
        });
        return;
      }
      this.unanswered.add(req.id);
      const call = this.hub.recorder && this.begin(req);
      void this.onRequest(req).finally(() => {
        if (call) this.end(call);
        this.unanswered.delete(req.id);
        this.resultCaps?.delete(req.id);
        this.viewTaps?.delete(req.id);
        this.cancelledEarly.delete(req.id);
        if (this.unanswered.size === 0) this.drained?.();
      });
    };
    this.peer.onnotification = (n) => this.onNotification(n);
    this.peer.onerror = (e) => hub.logger.debug(`downstream transport: ${e.message}`);
    this.peer.onclose = () => void this.close(hub.drainOnEofMs ?? DRAIN_ON_EOF_MS);
  }

  start(): Promise<void> {
    return this.peer.start();
  }

  private begin(req: RpcRequest): ActiveCall {
    const call = this.hub.recorder!.begin(this.serial, this.clientName, req.id, req.method, req.params, this);
    call.server = this.scope.serverId;
    call.bytesIn = wireBytesOf(req);
    (this.calls ??= new Map()).set(req.id, call);
    return call;
  }

  private end(call: ActiveCall): void {
    this.calls!.delete(call.id);
    call.client ??= this.clientName;
    this.hub.recorder!.end(call);
  }

  /** Records `id` as refused by a policy (activity/); the caller answers it (a tool call: policyRefusal.ts). */
  denied(id: RequestId, error: RpcErrorObject): void {
    this.calls?.get(id)?.denied(error);
  }

  /** Records `id` as a call of a tool with an MCP Apps view; `onResult` gets its whole result (apps/viewTap.ts). */
  recordView(id: RequestId, app: ActivityApp, onResult: (result: Record<string, unknown>) => void): void {
    const call = this.calls?.get(id);
    if (call) call.app = app;
    (this.viewTaps ??= new Map()).set(id, onResult);
  }

  /** Records and traces `id` as a call of tool `name` through `via` (`call_tool`). */
  through(id: RequestId, via: string, name: string): void {
    this.calls?.get(id)?.through(via, name);
  }

  get single(): Upstream | undefined {
    return this.scope.serverId !== undefined ? this.hub.upstream(this.scope.serverId) : undefined;
  }

  /** The downstream id of this session's most recent call in flight on `u`, if any. */
  relatedCallOn(u: Upstream): RequestId | undefined {
    let best: { id: RequestId; at: number } | undefined;
    for (const [id, f] of this.inflight)
      if (f.upstream === u && (!best || f.startedAt >= best.at)) best = { id, at: f.startedAt };
    return best?.id;
  }

  /** The downstream id of this session's call in flight on `u` that went upstream as `upstreamId`. */
  callWithUpstreamId(u: Upstream, upstreamId: RequestId): RequestId | undefined {
    for (const [id, f] of this.inflight) if (f.upstream === u && f.handle?.id === upstreamId) return id;
    return undefined;
  }

  hasCallOn(u: Upstream): boolean {
    return this.relatedCallOn(u) !== undefined;
  }

  /** A 2026-07-28 client: never sent server-to-client requests (its calls to 2025 servers are held: heldCall.ts). */
  get speaks2026(): boolean {
    return this.codec.speaks2026;
  }

  /** Whether servers' requests to their client may go to this session (not a 2026-07-28 one's). */
  get takesServerRequests(): boolean {
    return this.codec.takesServerRequests;
  }

  notify(method: string, params?: Record<string, unknown>, relatedRequestId?: RequestId): void {
    if (this.closed) return;
    if (this.calls && relatedRequestId !== undefined && method === 'notifications/progress') {
      const call = this.calls.get(relatedRequestId);
      if (call) call.progress++;
    }
    if (this.initialized) void this.peer.notify(method, params, relatedRequestId);
    else this.codec.notifyUninitialized(method, params, relatedRequestId);
  }

  /** A list of `kind` changed: a 2026 client's listens hear of it, a 2025 client as listChangeNotices.ts decides. */
  listChanged(kind: ListKind): void {
    this.codec.listChanged(kind);
    if (this.initialized) this.notices.changed(kind);
  }

  /** Tools joined this session's own `tools/list` (found by search): only its client hears of it. */
  toolsFound(): void {
    this.codec.listChanged('tools');
    if (this.initialized) this.notices.changedHere('tools');
  }

  /**
   * Closes the session. After stdin EOF, received requests are finished first, bounded by
   * `drainMs` or, while servers are in their first start, the ready window (`echo request |
   * proxy` works); then whatever is unanswered gets an error (`reason`, if given: a server
   * removed by a reload), so a stdio client that half-closed still reads every answer.
   */
  async close(drainMs = 0, reason?: string): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    // Open listens end with the session (and are not waited for by the drain below).
    if (this.codec.closeListens()) await new Promise(setImmediate);
    const boundMs = drainMs > 0 ? Math.max(drainMs, this.hub.readyWindowLeftMs(this.scope)) : 0;
    if (boundMs > 0 && this.unanswered.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, boundMs);
        this.drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.closed = true;
    for (const f of this.inflight.values()) {
      if (f.handle)
        f.upstream.notify('notifications/cancelled', { requestId: f.handle.id, reason: 'client disconnected' });
    }
    const message =
      reason ??
      (drainMs > 0
        ? `not answered within ${boundMs} ms after the input ended; the proxy is closing the session`
        : 'session closed by the proxy');
    const answered: Promise<void>[] = [];
    for (const id of this.unanswered) {
      if (this.inflight.get(id)?.cancelled || this.cancelledEarly.has(id)) continue;
      answered.push(this.peer.respondError(id, { code: ErrorCode.ConnectionClosed, message }).catch(() => undefined));
    }
    this.unanswered.clear();
    this.inflight.clear();
    // Its kept results go with it (and stop counting toward the bound across sessions).
    void this.storeLoading?.then((store) => store.release());
    await Promise.all(answered);
    this.hub.releaseSubscriptions(this);
    if (!this.peer.isClosed) await this.peer.close().catch(() => undefined);
    this.onclosed?.();
  }

  private async onRequest(req: RpcRequest): Promise<void> {
    this.lastActive = Date.now();
    // A request pipelined behind `initialize` is answered after it, as a server would.
    if (this.initializing && req.method !== 'initialize') await this.initializing;
    // Before `initialize`, the codec takes the request first; it may choose 2026-07-28 (protocol/codecChoice.ts).
    if (!this.initialized) {
      const taken = this.codec.take(this.hub, this, req);
      if (taken && (await taken)) return;
    }
    const list = LIST_METHODS[req.method];
    if (list) {
      await this.hub.waitReady(this.scope);
      const kind = list.kind === 'templates' ? 'resources' : list.kind;
      this.notices.listed(kind);
      if (
        list.kind === 'tools' &&
        this.scope.serverId === undefined &&
        this.scope.exposure !== 'all' &&
        this.hub.exposure.mode() === 'search'
      ) {
        const { searchModeTools } = await import('./economy/metaTools.js');
        return this.reply(req.id, { tools: searchModeTools(this.hub, this.found) });
      }
      const meta = this.single?.lists.meta[list.kind];
      return this.reply(req.id, {
        [list.field]: this.hub.list(list.kind, this.scope),
        ...(meta === undefined ? {} : { _meta: meta }),
      });
    }
    switch (req.method) {
      case 'initialize':
        return this.initialize(req);
      case 'ping':
        return this.reply(req.id, {});
      case 'server/discover':
        return answerDiscover(this.hub, this, req);
      case 'subscriptions/listen':
        return this.codec.listen(this.hub, this, req) ?? routeRequest(this.hub, this, req);
      default:
        return routeRequest(this.hub, this, req);
    }
  }

  private onNotification(n: RpcNotification): void {
    this.lastActive = Date.now();
    if (n.method === 'notifications/initialized') return;
    if (n.method === 'notifications/cancelled') {
      const id = n.params?.requestId as RequestId;
      this.calls?.get(id)?.cancelled();
      if (this.codec.cancelListen(id)) return;
      const f = this.inflight.get(id);
      if (!f) {
        if (this.unanswered.has(id)) this.cancelledEarly.add(id);
        return;
      }
      f.cancelled = true;
      if (f.handle) {
        f.upstream.notify(n.method, { ...n.params, requestId: f.handle.id });
        f.handle.abandon({ code: ErrorCode.ConnectionClosed, message: 'cancelled' });
      }
      return;
    }
    if (n.method === 'notifications/tasks/status') {
      // The status of a task this session runs for a server (task-augmented sampling or elicitation).
      const t = this.hub.tasks.clientTaskOf(this, String(n.params?.taskId));
      if (t)
        this.notifyBounded(
          t.upstream,
          t.visible === t.taskId ? n : { ...n, params: { ...n.params, taskId: t.visible } },
        );
      else if (this.single) this.notifyBounded(this.single, n);
      return;
    }
    if (n.method === 'notifications/roots/list_changed') {
      for (const u of this.hub.inScope(this.scope)) this.notifyBounded(u, n);
      return;
    }
    if (this.single) this.notifyBounded(this.single, n);
  }

  /** Forwards a client notification unless this session's queue toward `u` is full. */
  private notifyBounded(u: Upstream, n: RpcNotification): void {
    if (this.queue.full(u)) return this.queue.drop(u, n.method);
    this.queue.track(u, u.notify(n.method, n.params));
  }

  private async initialize(req: RpcRequest): Promise<void> {
    const p = req.params ?? {};
    this.clientCapabilities = (p.capabilities as Record<string, unknown>) ?? {};
    this.clientName = clientNameOf(p.clientInfo);
    this.clientVersion = clientVersionOf(p.clientInfo);
    let answered!: () => void;
    this.initializing = new Promise<void>((r) => (answered = r));
    try {
      const result = await initializeResult(this.hub, this.scope, p);
      this.initialized = true;
      await this.reply(req.id, result);
    } finally {
      this.initializing = undefined;
      answered();
    }
    // The shared upstreams were initialised before this client existed: a client with roots
    // makes them ask again, so they see its roots as on a direct connection.
    if (this.clientCapabilities.roots)
      for (const x of this.hub.inScope(this.scope)) x.notify('notifications/roots/list_changed');
  }

  /** Forwards one request, routing its progress token and cancellation. */
  async forward(
    req: RpcRequest,
    u: Upstream,
    params: Record<string, unknown>,
    timeoutMs = u.entry.timeoutMs,
    mapResult?: (r: Record<string, unknown>) => Record<string, unknown>,
    round = 0,
  ): Promise<void> {
    if (this.cancelledEarly.has(req.id)) return; // cancelled while it waited: no answer, as for any cancel
    const call = this.calls?.get(req.id);
    if (call) call.server = u.id;
    if (this.queue.full(u)) return this.fail(req.id, this.queue.fullError(u));
    // A call the session's revision forwards its own way (a 2026 client's call to a 2025 server: held).
    const held = this.codec.hold(this.hub, this, req, u, params, timeoutMs, call, mapResult);
    if (held) return held;
    if (this.logLevel !== undefined) params = levelToServer(u, params, this.logLevel);
    const traced = call?.toServer?.(u, req.method, params);
    if (traced) params = traced.params;
    const meta = params._meta as Record<string, unknown> | undefined;
    const f: InFlight = { upstream: u, startedAt: Date.now() };
    this.inflight.set(req.id, f);
    let upstreamToken: string | undefined;
    const pending = u.forward(req.method, params, { timeoutMs }, (h) => {
      f.handle = h;
      if (meta?.progressToken === undefined) return;
      upstreamToken = this.hub.routeProgress(u, this, meta.progressToken as string | number, req.id, h.touch);
      return { ...params, _meta: { ...meta, progressToken: upstreamToken } };
    });
    this.queue.track(u, pending);
    const response = await pending;
    traced?.done(response, f.handle?.id);
    if (upstreamToken) this.hub.dropProgress(u, upstreamToken);
    this.inflight.delete(req.id);
    if (f.cancelled || this.closed) return;
    if ('error' in response) {
      if (response.error.code === ErrorCode.UrlElicitationRequired)
        this.hub.urlElicitationsRequired(u, this, response.error.data);
      return this.fail(req.id, response.error);
    }
    // A result with a `resultType` the session's revision may cross (a 2026 server's input rounds or task for a 2025 client).
    if (response.result.resultType !== undefined) {
      const crossed = this.codec.crossResult(this, req, u, params, response.result, timeoutMs, round, mapResult);
      if (crossed) return crossed;
    }
    return this.reply(req.id, mapResult ? mapResult(response.result) : response.result);
  }

  /** The result answering `id` is cut to `u`'s `maxResultBytes`, in an aggregate session (economy/resultCap.ts). */
  capResult(id: RequestId, u: Upstream): void {
    if (this.scope.serverId !== undefined) return;
    const cap = resultCapOf(this.hub.config, u.entry);
    if (cap !== undefined) (this.resultCaps ??= new Map()).set(id, cap);
  }

  /** Answers `req` when its URI names a result this session kept (economy/resultStore.ts); undefined otherwise. */
  readKept(req: RpcRequest): Promise<void> | undefined {
    const uri = String(req.params?.uri ?? '');
    if (!this.store?.owns(uri)) return undefined;
    // A kept result never changes: subscribing to it is allowed and never notified.
    if (req.method !== 'resources/read') return this.reply(req.id, {});
    const read = this.store.read(uri);
    return 'error' in read ? this.fail(req.id, read.error) : this.reply(req.id, read.result);
  }

  /** Answers `id` with `result` (cut to its cap, if it has one and is over it), unless the session is closed. */
  reply(id: RequestId, result: Record<string, unknown>): Promise<void> {
    this.viewTaps?.get(id)?.(result);
    const cap = this.resultCaps?.get(id);
    if (cap !== undefined) {
      this.resultCaps!.delete(id);
      const bytes = sizeOverCap(result, cap);
      // Only a final result is cut: a 2026 server's input_required or task answer passes as it is.
      if (bytes !== undefined && (result.resultType ?? 'complete') === 'complete')
        return this.replyCut(id, result, bytes, cap);
    }
    return this.send(id, result);
  }

  private async replyCut(id: RequestId, result: Record<string, unknown>, bytes: number, cap: number): Promise<void> {
    if (this.closed) return;
    const maxMessageBytes = this.hub.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.storeLoading ??= import('./economy/resultStore.js').then(
      (m) => (this.store = new m.ResultStore({ maxMessageBytes })),
    );
    const store = await this.storeLoading;
    return this.send(id, store.cut(result, bytes, cap));
  }

  private send(id: RequestId, result: Record<string, unknown>): Promise<void> {
    result = this.codec.encodeResult(id, result);
    if (this.calls) return this.sendRecorded(id, result);
    return this.closed ? Promise.resolve() : this.peer.respond(id, result);
  }

  private async sendRecorded(id: RequestId, result: Record<string, unknown>): Promise<void> {
    const call = this.calls!.get(id);
    if (call && this.hub.recorder!.captures(call.server)) call.result = result;
    call?.answered?.(result);
    if (this.closed) return;
    const bytes = await this.peer.answer(id, { result });
    if (call) call.bytesOut = bytes;
  }

  /** Answers `id` with `error`, unless the session is closed. */
  fail(id: RequestId, error: RpcErrorObject): Promise<void> {
    this.resultCaps?.delete(id);
    this.calls?.get(id)?.failed(error);
    error = this.codec.encodeError(id, error);
    if (this.closed) return Promise.resolve();
    const call = this.calls?.get(id);
    if (call) return this.peer.answer(id, { error }).then((bytes) => void (call.bytesOut = bytes));
    return this.peer.respondError(id, error);
  }
}
