/**
 * Where a 2026-07-28 client's call to a 2025-11-25 server starts or resumes (heldCall.ts):
 * `tools/call`, `prompts/get` and `resources/read`, the requests 2026-07-28 allows an
 * `input_required` answer on. A request without `requestState` starts a held call (any
 * `inputResponses` it carries answer nothing yet and are dropped, once checked for shape); a
 * request with one resumes the call the state names, if the state verifies
 * (heldInputTable.ts). Other requests of a 2026-07-28 client, and every request of a
 * 2025 client, never come here. The adapter of this crossing: a 2026 session's codec hands it
 * the call (rev2026-07-28/sessionCodec2026.ts: hold).
 */
import { ErrorCode, type RequestId, type RpcErrorObject, type RpcRequest } from '../../jsonrpc/jsonRpc.js';
import type { Upstream } from '../../upstream/upstream.js';
import type { ActiveCall } from '../../activity/activityRecorder.js';
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_SERVER_PROTOCOL,
  REV2026_PROTOCOL_VERSION,
} from '../rev2026-07-28/vocabulary.js';
import { HeldCall, type HeldSession } from './heldCall.js';
import type { HeldHost } from '../../hub/sessionContracts.js';

type Params = Record<string, unknown>;

/** The requests on which 2026-07-28 lets a server answer `input_required`. */
export const HELD_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/**
 * A server spoken to in 2025-11-25 (its requests to the client come mid-call). Not our
 * bridge's route to a 2026 server (marked in its `initialize` answer): the bridge passes that
 * server's `input_required` through for a request with a 2026 envelope, and the retry's
 * `requestState` is the server's.
 */
export function isRev2025Upstream(u: Upstream): boolean {
  return (
    !u.speaks2026 && (u.initResult?._meta as Params | undefined)?.[META_SERVER_PROTOCOL] !== REV2026_PROTOCOL_VERSION
  );
}

const isObject = (v: unknown): v is Params => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Starts or resumes the held call behind `req` (the session's request, `params` as routed);
 * `call`: the request's record or trace, which a new held call's request to the server joins.
 */
export function forwardHeld(
  hub: HeldHost,
  s: HeldSession,
  req: RpcRequest,
  u: Upstream,
  params: Params,
  timeoutMs: number,
  call?: ActiveCall,
): Promise<void> {
  const original = req.params ?? {};
  const meta = isObject(original._meta) ? original._meta : {};
  const info = isObject(meta[META_CLIENT_INFO]) ? meta[META_CLIENT_INFO] : {};
  const principal = JSON.stringify([s.scope.serverId ?? '', info.name ?? '', info.version ?? '']);
  const digest = process
    .getBuiltinModule('node:crypto')
    .createHash('sha256')
    .update(JSON.stringify([req.method, original.name ?? original.uri ?? null, original.arguments ?? null]))
    .digest('base64url');
  const { inputResponses, requestState, ...rest } = params;
  if (inputResponses !== undefined && (!isObject(inputResponses) || !Object.values(inputResponses).every(isObject))) {
    return s.fail(req.id, {
      code: ErrorCode.InvalidParams,
      message: 'Invalid params: inputResponses must be an object whose values are the results of the input requests',
    });
  }
  const w = {
    session: s,
    id: req.id as RequestId,
    progressToken: meta.progressToken as string | number | undefined,
    capabilities: isObject(meta[META_CLIENT_CAPABILITIES]) ? meta[META_CLIENT_CAPABILITIES] : {},
  };
  if (requestState !== undefined) {
    if (typeof requestState !== 'string')
      return s.fail(req.id, {
        code: ErrorCode.InvalidParams,
        message: 'Invalid params: requestState must be a string',
      });
    const held = hub.held.redeem(requestState, principal, req.method, digest);
    if (!(held instanceof HeldCall)) return s.fail(req.id, held as RpcErrorObject);
    return held.resume(w, inputResponses ?? {});
  }
  const askKey = req.method === 'resources/read' ? req.method : `${req.method}\0${String(rest.name ?? '')}`;
  return new HeldCall(hub, u, req.method, principal, digest, timeoutMs, askKey, call).start(w, rest);
}
