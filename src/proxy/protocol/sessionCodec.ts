/**
 * The proxy's side of one downstream session in its protocol revision: what DownstreamSession
 * asks its codec instead of testing the revision. A session starts with the 2025-11-25 codec
 * (rev2025-11-25/sessionCodec2025.ts); before `initialize`, its first request with a valid
 * 2026-07-28 envelope makes the 2026-07-28 codec (rev2026-07-28/sessionCodec2026.ts) its codec
 * for good, and a `server/discover` probe is answered and chooses nothing (codecChoice.ts). A
 * 2025 session's codec is one shared object: the 2025 path pays one call where it tested a flag.
 */
import type { RequestId, RpcErrorObject, RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { Upstream } from '../upstream/upstream.js';
import type { ListKind } from '../upstream/listCache.js';
import type { ActiveCall } from '../activity/activityRecorder.js';
import type { SessionHost, SessionRevision } from '../hub/sessionContracts.js';
import type { HeldSession } from './crossings/heldCall.js';

type Params = Record<string, unknown>;

/** A session as its codec sees it (DownstreamSession). */
export interface CodecSession extends HeldSession {
  /** Its codec: replaced at most once, by the choice of 2026-07-28 (codecChoice.ts). */
  codec: SessionCodec;
  /** Its JSON-RPC peer: a 2026-07-28 session's codec notifies its client directly. */
  readonly peer: HeldSession['peer'] & Notifier;
  clientName?: string;
  clientVersion?: string;
  forward(
    req: RpcRequest,
    u: Upstream,
    params: Params,
    timeoutMs?: number,
    mapResult?: (r: Params) => Params,
    round?: number,
  ): Promise<void>;
}

/** How a session's writer notifies its client directly (its JSON-RPC peer). */
export interface Notifier {
  notify(method: string, params?: Params, relatedRequestId?: RequestId): Promise<void>;
}

export interface SessionCodec extends SessionRevision {
  /**
   * Takes `req` of a session not initialized, before it is routed: a promise of true when the
   * codec answered it itself (a bad envelope, a discover probe); undefined when it has nothing to do.
   */
  take(hub: SessionHost, s: CodecSession, req: RpcRequest): Promise<boolean> | undefined;
  /** A hub notification to a session without an `initialize` handshake (an initialized one gets them all). */
  notifyUninitialized(method: string, params: Params | undefined, related: RequestId | undefined): void;
  /** `subscriptions/listen`. */
  listen(hub: SessionHost, s: CodecSession, req: RpcRequest): Promise<void> | undefined;
  /** A list of `kind` changed (or grew for this session alone): the session's listens hear of it. */
  listChanged(kind: ListKind): void;
  /** Ends listen `id` on its client's cancel: true if it was one. */
  cancelListen(id: RequestId): boolean;
  /** Ends every listen as the session closes: true if there was one. */
  closeListens(): boolean;
  /** Forwards `req` to `u` another way than the plain one (a held call), or undefined. */
  hold(
    hub: SessionHost,
    s: CodecSession,
    req: RpcRequest,
    u: Upstream,
    params: Params,
    timeoutMs: number,
    call: ActiveCall | undefined,
    mapResult: ((r: Params) => Params) | undefined,
  ): Promise<void> | undefined;
  /** Answers a server's result that has a `resultType` another way than as it is (input rounds, a task followed), or undefined. */
  crossResult(
    s: CodecSession,
    req: RpcRequest,
    u: Upstream,
    params: Params,
    result: Params,
    timeoutMs: number,
    round: number,
    mapResult: ((r: Params) => Params) | undefined,
  ): Promise<void> | undefined;
  /** The result answering `id`, as the session's client expects it. */
  encodeResult(id: RequestId, result: Params): Params;
  /** The error answering `id`, as the session's client expects it. */
  encodeError(id: RequestId, error: RpcErrorObject): RpcErrorObject;
}
