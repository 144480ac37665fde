/**
 * The proxy's side of a 2026-07-28 session (protocol/sessionCodec.ts), one per session, made
 * when the session chose the revision (protocol/codecChoice.ts): each request's envelope
 * checked and its method and log level kept while it is in flight (envelope.ts, logLevels.ts),
 * each result given its `resultType` and cache hints, notifications scoped to requests and
 * listens (listenSet.ts, taskListen.ts), task requests to the tasks extension
 * (crossings/heldTasks.ts), and a plain call to a 2025 server held across its input rounds
 * (crossings/heldCalls.ts).
 */
import type { RequestId, RpcErrorObject, RpcRequest } from '../../jsonrpc/jsonRpc.js';
import type { Upstream } from '../../upstream/upstream.js';
import type { ListKind } from '../../upstream/listCache.js';
import type { ActiveCall } from '../../activity/activityRecorder.js';
import type { RoutingSession, SessionHost } from '../../hub/sessionContracts.js';
import type { CodecSession, Notifier, SessionCodec } from '../sessionCodec.js';
import { clientNameOf, clientVersionOf } from '../clientInfo.js';
import { envelopeError, forget2026Request, rev2026Result } from './envelope.js';
import { notify2026, requestLogLevel } from './logLevels.js';
import { ListenSet } from './listenSet.js';
import { listenTasks } from './taskListen.js';
import { META_CLIENT_INFO } from './vocabulary.js';
import { forwardHeld, HELD_METHODS, isRev2025Upstream } from '../crossings/heldCalls.js';
import { routeExtensionTaskRequest } from '../crossings/heldTasks.js';

type Params = Record<string, unknown>;

/** The client's name and version from `req`'s envelope, unless it said them before. */
export function takeClientInfo(s: CodecSession, req: RpcRequest): void {
  const info = (req.params?._meta as Params | undefined)?.[META_CLIENT_INFO];
  s.clientName ??= clientNameOf(info);
  s.clientVersion ??= clientVersionOf(info);
}

export class SessionCodec2026 implements SessionCodec {
  readonly speaks2026 = true;
  readonly takesServerRequests = false;
  /** The method of each request in flight (its result's cache hints, its error's code). */
  private readonly methods = new Map<RequestId, string>();
  /** The per-request log levels of requests in flight that asked for logs. */
  private levels?: Map<RequestId, string>;
  private listens?: ListenSet;

  constructor(private readonly peer: Notifier) {}

  take(hub: SessionHost, s: CodecSession, req: RpcRequest): Promise<boolean> {
    const bad = envelopeError(req);
    if (bad) return s.fail(req.id, bad).then(() => true);
    takeClientInfo(s, req);
    return this.admit(hub, s, req);
  }

  /** Keeps what `req` (its envelope checked) needs while in flight, then waits for servers in their first start. */
  async admit(hub: SessionHost, s: CodecSession, req: RpcRequest): Promise<boolean> {
    this.methods.set(req.id, req.method);
    const level = requestLogLevel(req.params);
    if (level) (this.levels ??= new Map()).set(req.id, level);
    // No handshake to wait in: a 2026 request waits, as `initialize` does, for servers in their first start.
    await hub.waitReady(s.scope);
    return false;
  }

  notifyUninitialized(method: string, params: Params | undefined, related: RequestId | undefined): void {
    notify2026(this.peer, this.listens, this.levels, method, params, related);
  }

  listen(hub: SessionHost, s: CodecSession, req: RpcRequest): Promise<void> {
    this.listens ??= new ListenSet((m, p, rel) => void this.peer.notify(m, p, rel), hub, s);
    const tasks = listenTasks(hub, s, req, (p) => void this.peer.notify('notifications/tasks', p, req.id));
    if (tasks.error) return s.fail(req.id, tasks.error);
    return this.listens.listen(req, tasks.ack).finally(tasks.stop);
  }

  listChanged(kind: ListKind): void {
    this.listens?.changed(kind);
  }

  cancelListen(id: RequestId): boolean {
    return this.listens?.cancel(id) ?? false;
  }

  closeListens(): boolean {
    return this.listens?.closeAll() ?? false;
  }

  hold(
    hub: SessionHost,
    s: CodecSession,
    req: RpcRequest,
    u: Upstream,
    params: Params,
    timeoutMs: number,
    call: ActiveCall | undefined,
    mapResult: ((r: Params) => Params) | undefined,
  ): Promise<void> | undefined {
    // A plain call to a 2025 server is held across its input rounds (a task-augmented one: crossings/heldTasks.ts).
    if (mapResult || !HELD_METHODS.has(req.method) || !isRev2025Upstream(u)) return undefined;
    return forwardHeld(hub, s, req, u, params, timeoutMs, call);
  }

  crossResult(): undefined {
    return undefined;
  }

  encodeResult(id: RequestId, result: Params): Params {
    const out = rev2026Result(this.methods.get(id), result);
    this.methods.delete(id);
    this.levels?.delete(id);
    return out;
  }

  encodeError(id: RequestId, error: RpcErrorObject): RpcErrorObject {
    this.levels?.delete(id);
    return forget2026Request(this.methods, id, error);
  }

  routeTasks(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void> {
    return routeExtensionTaskRequest(hub, s, req);
  }
}
