/**
 * What a downstream session does differently for a 2026-07-28 client (one that opens with
 * `server/discover` or sends the per-request `_meta` envelope instead of `initialize`):
 * each request's envelope checked (-32022 for a version the proxy does not serve, -32602 for
 * a missing required field, as 2026-07-28 "_meta" says), and each result completed with
 * `resultType: "complete"` and, on cacheable methods, the cache hints (`ttlMs: 0`,
 * `cacheScope: "private"` unless the server gave its own). A 2025 session never gets here:
 * its codec is another (protocol/sessionCodec.ts).
 */
import { ErrorCode, type RequestId, type RpcErrorObject, type RpcRequest } from '../../jsonrpc/jsonRpc.js';
import {
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  REV2026_PROTOCOL_VERSION,
  SERVED_VERSIONS,
} from './vocabulary.js';
import { isLogLevel, META_LOG_LEVEL } from './logLevels.js';

/** Methods 2026-07-28 removed: a modern client calling one gets Method not found. */
const REMOVED = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'tasks/result',
  'tasks/list',
]);
const CACHEABLE = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/** True for a request that carries the 2026-07-28 envelope, or opens with server/discover. */
export function isRev2026Request(req: RpcRequest): boolean {
  if (req.method === 'server/discover') return true;
  const meta = req.params?._meta as Record<string, unknown> | undefined;
  return typeof meta?.[META_PROTOCOL_VERSION] === 'string';
}

/** The error a modern request's envelope deserves, if any. */
export function envelopeError(req: RpcRequest): RpcErrorObject | undefined {
  const meta = req.params?._meta as Record<string, unknown> | undefined;
  const version = meta?.[META_PROTOCOL_VERSION];
  if (req.method === 'server/discover' && version === undefined) return undefined;
  if (typeof version !== 'string')
    return { code: ErrorCode.InvalidParams, message: `Invalid params: _meta["${META_PROTOCOL_VERSION}"] is required` };
  if (version !== REV2026_PROTOCOL_VERSION) {
    return {
      code: ErrorCode.UnsupportedProtocolVersion,
      message: `Unsupported protocol version: ${version}`,
      data: { supported: SERVED_VERSIONS, requested: version },
    };
  }
  if (REMOVED.has(req.method))
    return {
      code: ErrorCode.MethodNotFound,
      message: `Method not found: ${req.method} (not part of MCP ${REV2026_PROTOCOL_VERSION})`,
    };
  const level = meta?.[META_LOG_LEVEL];
  if (level !== undefined && !isLogLevel(level))
    return { code: ErrorCode.InvalidParams, message: `Invalid params: unknown log level ${JSON.stringify(level)}` };
  const caps = meta?.[META_CLIENT_CAPABILITIES];
  if (!caps || typeof caps !== 'object')
    return {
      code: ErrorCode.InvalidParams,
      message: `Invalid params: _meta["${META_CLIENT_CAPABILITIES}"] is required`,
    };
  return undefined;
}

/**
 * An error as a 2026-07-28 client expects it: a server's unknown resource (2025-11-25:
 * -32002 with `data.uri`) is -32602.
 */
export function rev2026Error(method: string | undefined, error: RpcErrorObject): RpcErrorObject {
  const data = error.data as { uri?: unknown } | undefined;
  return method === 'resources/read' && error.code === -32002 && data?.uri !== undefined
    ? { ...error, code: ErrorCode.InvalidParams }
    : error;
}

/** Forgets the modern request `id` (it is being answered with `error`); the error as its client expects it. */
export function forget2026Request(
  requests: Map<RequestId, string>,
  id: RequestId,
  error: RpcErrorObject,
): RpcErrorObject {
  const method = requests.get(id);
  requests.delete(id);
  return rev2026Error(method, error);
}

/** A result as a 2026-07-28 client expects it. */
export function rev2026Result(method: string | undefined, result: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { resultType: 'complete', ...result };
  if (method && CACHEABLE.has(method)) {
    if (typeof out.ttlMs !== 'number') out.ttlMs = 0;
    if (out.cacheScope !== 'public' && out.cacheScope !== 'private') out.cacheScope = 'private';
  }
  return out;
}
