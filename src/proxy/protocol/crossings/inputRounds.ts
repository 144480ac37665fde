/**
 * A 2025-11-25 client calling a 2026-07-28 server that answers `input_required` (MCP
 * 2026-07-28 multi-round-trip requests): the proxy asks the client each embedded input
 * request as the ordinary server-to-client request it is in 2025 (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`, on the call's own stream), collects the answers,
 * and DownstreamSession re-issues the call with `inputResponses` and the server's
 * `requestState` echoed unchanged; a server that asks again gets another round, up to
 * MAX_INPUT_ROUNDS. A 2026-07-28 client never gets here: it receives `input_required` itself.
 * The adapter of this crossing: a 2025 session's codec hands it the result
 * (rev2025-11-25/sessionCodec2025.ts, through inputRoundTasks.ts:answerRoundsOrTask).
 */
import {
  ErrorCode,
  type RequestId,
  type RpcErrorObject,
  type RpcRequest,
  type RpcResponse,
} from '../../jsonrpc/jsonRpc.js';
import type { RequestOptions } from '../../jsonrpc/jsonRpcPeer.js';
import type { Upstream } from '../../upstream/upstream.js';
import type { RoutingSession } from '../../hub/sessionContracts.js';
import { CAPABILITY_OF } from '../../hub/serverRequestRouter.js';

export const MAX_INPUT_ROUNDS = 8;

interface Asker {
  readonly clientCapabilities: Record<string, unknown>;
  readonly peer: {
    request(method: string, params: Record<string, unknown> | undefined, opts: RequestOptions): Promise<RpcResponse>;
  };
}

export function isInputRequired(result: Record<string, unknown>): boolean {
  return result.resultType === 'input_required';
}

/**
 * The params of the retry (`inputResponses`, `requestState`), or the error that ends the
 * call: too many rounds, an input request the client cannot answer, or the client's error.
 */
export async function answerInputRequests(
  s: Asker,
  serverId: string,
  callId: RequestId,
  result: Record<string, unknown>,
  round: number,
  timeoutMs: number,
): Promise<Record<string, unknown> | RpcErrorObject> {
  if (round >= MAX_INPUT_ROUNDS)
    return {
      code: ErrorCode.InternalError,
      message: `server "${serverId}" asked for client input ${MAX_INPUT_ROUNDS} times in one call; giving up`,
    };
  const requests =
    (result.inputRequests as Record<string, { method?: unknown; params?: Record<string, unknown> }> | undefined) ?? {};
  const keys = Object.keys(requests);
  const answers = await Promise.all(
    keys.map(async (key) => {
      const { method, params } = requests[key]!;
      const capability = typeof method === 'string' ? CAPABILITY_OF[method] : undefined;
      if (!capability)
        return {
          code: ErrorCode.InternalError,
          message: `server "${serverId}" asked for an unknown kind of client input (${String(method)})`,
        };
      if (!s.clientCapabilities[capability]) {
        return {
          code: ErrorCode.InvalidRequest,
          message: `server "${serverId}" needs ${capability} from the client for this call, and this client did not declare it`,
        };
      }
      const res = await s.peer.request(method as string, params, { timeoutMs, relatedRequestId: callId });
      return 'error' in res ? res.error : res.result;
    }),
  );
  const inputResponses: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const a = answers[i]! as Record<string, unknown>;
    if (
      typeof a.code === 'number' &&
      typeof a.message === 'string' &&
      !('action' in a) &&
      !('role' in a) &&
      !('roots' in a)
    )
      return a as unknown as RpcErrorObject;
    inputResponses[keys[i]!] = a;
  }
  return { inputResponses, ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}) };
}

/** Asks `s`'s client the input `result` requests, then re-issues `req` with the answers (or fails it). */
export async function retryWithInput(
  s: RoutingSession &
    Asker & {
      forward(
        req: RpcRequest,
        u: Upstream,
        params: Record<string, unknown>,
        timeoutMs: number,
        mapResult: undefined,
        round: number,
      ): Promise<void>;
    },
  req: RpcRequest,
  u: Upstream,
  params: Record<string, unknown>,
  result: Record<string, unknown>,
  timeoutMs: number,
  round: number,
): Promise<void> {
  const next = await answerInputRequests(s, u.id, req.id, result, round, timeoutMs);
  if (typeof next.code === 'number' && typeof next.message === 'string')
    return s.fail(req.id, next as unknown as RpcErrorObject);
  const { inputResponses: _a, requestState: _b, ...rest } = params;
  return s.forward(req, u, { ...rest, ...next }, timeoutMs, undefined, round + 1);
}
