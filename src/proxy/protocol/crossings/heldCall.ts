/**
 * One call of a 2026-07-28 client to a 2025-11-25 server, held open across the client's
 * retries (the table and the `requestState` format: heldInputTable.ts).
 *
 * The server's call runs once, from the client's first request to its final answer. When
 * the server sends a server-to-client request (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`) during it, the request is collected; after a short
 * window (so that requests sent together are asked together) the client's pending request is
 * answered `input_required` with them as `inputRequests` and a new `requestState`, and the
 * call waits for the retry. The retry's `inputResponses` answer the collected requests
 * (unknown keys ignored; a missing answer is asked again in the next `input_required`, as
 * 2026-07-28 recommends), and the retry then waits for what the server does next: its final
 * answer, or more requests (another round). A request the client's envelope did not declare
 * the capability for is answered as on a connection with no capable client (`roots/list`:
 * an empty list; the others: -32601), never asked.
 *
 * A retry that does not come within the call's timeout releases the call: the collected
 * requests get an error, the server gets `notifications/cancelled`, and the state is
 * refused from then on. Each retry restarts the call's timeout, as progress does. One
 * client request waits on the call at a time (a second retry with the same state is
 * refused: heldInputTable.ts), so a cancel or close reaches only the call its request waits on.
 *
 * A call that may ask is sent when its turn comes on its server (askingGate.ts: the server's
 * requests do not say which call they belong to), at most the call's timeout after it came.
 */
import {
  ErrorCode,
  type RequestId,
  type RpcErrorObject,
  type RpcRequest,
  type RpcResponse,
} from '../../jsonrpc/jsonRpc.js';
import type { PendingHandle } from '../../jsonrpc/jsonRpcPeer.js';
import type { Upstream } from '../../upstream/upstream.js';
import type { ActiveCall } from '../../activity/activityRecorder.js';
import type { HeldEntry } from './heldInputTable.js';
import type { InFlight } from '../../hub/sessionContracts.js';
import type { HeldHost, RoutingSession } from '../../hub/sessionContracts.js';
import { CAPABILITY_OF, canAnswer } from '../../hub/serverRequestRouter.js';

/** Server-to-client requests sent together are asked together when they arrive within this window. */
export const GATHER_MS = 10;
/** More requests than this collected for one call get an error instead of being asked. */
export const MAX_ASKED = 32;

type Params = Record<string, unknown>;

/** A session as a held call answers it (DownstreamSession). */
export interface HeldSession extends RoutingSession {
  /** The session's calls in flight: a held call's current round is one (so a cancel reaches it). */
  readonly inflight: Map<RequestId, InFlight>;
}

/** The client request currently waiting on the call. */
export interface Waiter {
  session: HeldSession;
  id: RequestId;
  /** The client's progress token on this request, if any. */
  progressToken?: string | number;
  capabilities: Params;
}

export class HeldCall implements HeldEntry {
  readonly key: string;
  readonly startedAt = Date.now();
  round = 0;
  upstreamId?: RequestId;
  upstreamToken?: string;
  private handle?: PendingHandle;
  private readonly asked = new Map<string, { id: RequestId; method: string; params: Params | undefined }>();
  private n = 0;
  private final?: RpcResponse;
  private waiter?: Waiter & { f: InFlight; answered: () => void };
  private gather?: NodeJS.Timeout;
  private deadline?: NodeJS.Timeout;
  private sent = false;
  private ended = false;
  /** A request without a link was given to this call, or may have been its (askingGate.ts). */
  private askedUnlinked = false;
  /** The envelope capabilities of the latest request on this call: what may be asked. */
  private capabilities: Params = {};

  constructor(
    private readonly hub: HeldHost,
    readonly upstream: Upstream,
    readonly method: string,
    readonly principal: string,
    readonly digest: string,
    private readonly timeoutMs: number,
    readonly askKey: string,
    /** The first request's record or trace: tracing puts the server's request in a CLIENT span of its own. */
    private readonly call?: ActiveCall,
  ) {
    this.key = hub.held.newKey();
  }

  get waiting(): boolean {
    return this.waiter !== undefined;
  }

  get running(): boolean {
    return this.sent && !this.final && !this.ended;
  }

  /** Sends the call to the server when its turn comes; resolves when `w` has been answered (input_required or final). */
  start(w: Waiter, params: Params): Promise<void> {
    const answered = this.attach(w);
    this.hub.held.add(this);
    if (this.ended) return answered; // the table was full and this was the call to go
    this.hub.held.gate.enter(this, () => this.send(w, params));
    if (this.hub.held.gate.queued(this)) {
      const why = `server "${this.upstream.id}" is running another call that may ask for client input, and this call waited ${this.timeoutMs} ms for its turn`;
      this.deadline = setTimeout(() => this.release(why), this.timeoutMs);
      this.deadline.unref();
    }
    return answered;
  }

  private send(w: Waiter, params: Params): void {
    if (this.ended) return;
    clearTimeout(this.deadline);
    const now = this.waiter;
    // The client cancelled, or its session closed, while the call waited for its turn: never sent.
    if (now && (now.f.cancelled || now.session.inflight.get(now.id) !== now.f)) {
      if (now.session.inflight.get(now.id) === now.f) now.session.inflight.delete(now.id);
      this.end();
      return now.answered();
    }
    this.sent = true;
    // One request to the server for the whole call, whatever rounds the client makes: one CLIENT span.
    const traced = this.call?.toServer?.(this.upstream, this.method, params);
    if (traced) params = traced.params;
    const meta = params._meta as Params | undefined;
    void this.upstream
      .forward(this.method, params, { timeoutMs: this.timeoutMs }, (h) => {
        this.handle = h;
        this.upstreamId = h.id;
        if (this.waiter) this.waiter.f.handle = h;
        if (meta?.progressToken === undefined) return;
        this.upstreamToken = this.hub.routeProgress(
          this.upstream,
          w.session,
          meta.progressToken as string | number,
          w.id,
          h.touch,
        );
        return { ...params, _meta: { ...meta, progressToken: this.upstreamToken } };
      })
      .then((res) => {
        traced?.done(res, this.upstreamId);
        this.settled(res);
      });
  }

  /** A retry: answers the collected requests with `responses`, then waits for the server's next move. */
  resume(w: Waiter, responses: Params): Promise<void> {
    for (const [key, a] of this.asked) {
      const r = responses[key];
      if (r !== undefined && !answersKind(a.method, r as Params))
        return w.session.fail(w.id, {
          code: ErrorCode.InvalidParams,
          message: `Invalid params: inputResponses["${key}"] is not a result of ${a.method}`,
        });
    }
    for (const [key, a] of this.asked) {
      const r = responses[key];
      if (r === undefined) continue;
      this.asked.delete(key);
      this.upstream.respond(a.id, r as Params);
    }
    this.handle?.touch();
    if (this.upstreamToken !== undefined && w.progressToken !== undefined)
      this.hub.holdProgress(
        this.upstream,
        this.upstreamToken,
        w.session,
        w.progressToken,
        w.id,
        this.handle?.touch ?? (() => undefined),
      );
    return this.attach(w);
  }

  /** A server-to-client request that belongs to this call; `linked`: the wire said so. */
  ask(req: RpcRequest, linked: boolean): void {
    if (!linked) this.askedUnlinked = true;
    const capability = CAPABILITY_OF[req.method];
    if (
      this.ended ||
      !capability ||
      !canAnswer(this.capabilities, req.method, req.params) ||
      this.asked.size >= MAX_ASKED
    ) {
      if (capability && !this.ended && this.asked.size < MAX_ASKED) this.refused.add(capability);
      if (req.method === 'roots/list') return this.upstream.respond(req.id, { roots: [] });
      const why = this.ended
        ? 'the call has ended'
        : this.asked.size >= MAX_ASKED
          ? `more than ${MAX_ASKED} requests are waiting`
          : 'the client did not declare it';
      return this.upstream.respondError(req.id, {
        code: ErrorCode.MethodNotFound,
        message: `no connected client supports ${req.method} (${why})`,
      });
    }
    const { task: _task, ...params } = req.params ?? {};
    this.asked.set(`${capability}-${++this.n}`, {
      id: req.id,
      method: req.method,
      params: req.params === undefined ? undefined : params,
    });
    if (this.waiter) this.gatherSoon();
  }

  mayHaveAsked(): void {
    this.askedUnlinked = true;
  }

  /** Ends the call toward the server: collected requests get an error, the server a cancel. */
  release(reason: string): void {
    if (this.ended) return;
    for (const a of this.asked.values())
      this.upstream.respondError(a.id, { code: ErrorCode.InternalError, message: reason });
    this.asked.clear();
    if (this.handle && !this.final) {
      void this.upstream.notify('notifications/cancelled', { requestId: this.handle.id, reason });
      this.handle.abandon({ code: ErrorCode.ConnectionClosed, message: reason });
    }
    const w = this.waiter;
    this.end();
    if (w) this.answer(w, { error: { code: ErrorCode.InternalError, message: reason } });
  }

  /** Capabilities the server asked for that the client's envelope did not declare. */
  private readonly refused = new Set<string>();

  private attach(w: Waiter): Promise<void> {
    clearTimeout(this.deadline);
    this.capabilities = w.capabilities;
    const f: InFlight = { upstream: this.upstream, startedAt: this.startedAt, handle: this.handle };
    w.session.inflight.set(w.id, f);
    return new Promise<void>((answered) => {
      this.waiter = { ...w, f, answered };
      if (this.final) this.deliver();
      else if (this.asked.size > 0) this.gatherSoon();
    });
  }

  private gatherSoon(): void {
    if (this.gather) return;
    this.gather = setTimeout(() => {
      this.gather = undefined;
      if (this.final) return this.deliver();
      if (this.asked.size > 0 && this.waiter) this.askClient();
    }, GATHER_MS);
  }

  /** Answers the waiting request `input_required` and waits for the retry. */
  private askClient(): void {
    const w = this.waiter!;
    this.waiter = undefined;
    this.round++;
    const inputRequests: Params = {};
    for (const [key, a] of this.asked)
      inputRequests[key] = a.params === undefined ? { method: a.method } : { method: a.method, params: a.params };
    const requestState = this.hub.held.sign(this, Date.now() + this.timeoutMs);
    // The deadline is set before the call's own timeout restarts, so that it fires first (timers of one duration fire in order).
    this.deadline = setTimeout(
      () => this.release(`the client did not retry within ${this.timeoutMs} ms with the input the server asked for`),
      this.timeoutMs,
    );
    this.deadline.unref();
    this.handle?.touch();
    w.session.inflight.delete(w.id);
    void w.session.reply(w.id, { resultType: 'input_required', inputRequests, requestState }).finally(w.answered);
  }

  private settled(res: RpcResponse): void {
    if (this.ended) return;
    this.final = res;
    // The server is done with the call: it asks no more, and the next call on it may go.
    this.hub.held.gate.leave(this, this.askedUnlinked ? 'asks' : 'result' in res ? 'quiet' : undefined);
    // Requests the server sent but no longer waits for: answered, so nothing is left open.
    for (const a of this.asked.values())
      this.upstream.respondError(a.id, { code: ErrorCode.InternalError, message: 'the call has ended' });
    this.asked.clear();
    if (this.waiter && !this.gather) this.deliver();
  }

  private deliver(): void {
    const w = this.waiter;
    if (!w) return;
    this.end();
    const res = this.final!;
    // The server failed (an error, or a tool's isError) after asking for what the client did not
    // declare: say so as 2026-07-28 does (-32021), as a 2026 server would have.
    if (this.refused.size > 0 && ('error' in res || res.result.isError === true)) {
      const missing = [...this.refused];
      const requiredCapabilities = Object.fromEntries(missing.map((c) => [c, {}]));
      const message = `server "${this.upstream.id}" needs ${missing.join(' and ')} from the client for this call, and this client did not declare it`;
      return this.answer(w, {
        error: { code: ErrorCode.MissingRequiredClientCapability, message, data: { requiredCapabilities } },
      });
    }
    this.answer(w, res);
  }

  private answer(
    w: Waiter & { f: InFlight; answered: () => void },
    out: { error: RpcErrorObject } | { result: Params },
  ): void {
    w.session.inflight.delete(w.id);
    if (w.f.cancelled) return w.answered();
    void ('error' in out ? w.session.fail(w.id, out.error) : w.session.reply(w.id, out.result)).finally(w.answered);
  }

  private end(): void {
    this.ended = true;
    this.waiter = undefined;
    clearTimeout(this.gather);
    clearTimeout(this.deadline);
    this.hub.held.delete(this);
    this.hub.held.gate.leave(this);
    if (this.upstreamToken !== undefined) this.hub.dropProgress(this.upstream, this.upstreamToken);
  }
}

/** Whether `r` has the shape of a result of `method` (checked before it reaches the server). */
function answersKind(method: string, r: Params): boolean {
  if (method === 'elicitation/create') return r.action === 'accept' || r.action === 'decline' || r.action === 'cancel';
  if (method === 'sampling/createMessage')
    return typeof r.role === 'string' && typeof r.content === 'object' && r.content !== null;
  return Array.isArray(r.roots);
}
