/**
 * The vocabulary of MCP revision 2026-07-28 ("modern": no `initialize`, a per-request
 * `_meta` envelope) as the proxy's upstream side needs it: the envelope it puts on each
 * request, what counts as a modern error (the era-probe fallback rule), and the
 * `initialize`-shaped record the rest of the proxy keeps for a server (from `server/discover`).
 */
import { ErrorCode, type RpcErrorObject } from '../../jsonrpc/jsonRpc.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../common/protocolVersion.js';

export const REV2026_PROTOCOL_VERSION = '2026-07-28';
/** Every revision the proxy serves (a 2026 error's `data.supported`, discover's `supportedVersions`); the 2025 ones through `initialize`. */
export const SERVED_VERSIONS: readonly string[] = [REV2026_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];
/** The tasks extension (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
/**
 * Our bridge's mark, in a single-server route's `initialize` result, that the server behind
 * it speaks 2026-07-28 (a proxy of ours in front then passes its `input_required` through
 * instead of holding the call: hub/heldCalls.ts).
 */
export const META_SERVER_PROTOCOL = 'qiming-mcp-runtime/serverProtocolVersion';

/** The era-defining error codes of 2026-07-28: such an error proves the server modern. */
const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.UnsupportedProtocolVersion,
]);

export function isRev2026Error(err: RpcErrorObject | undefined): boolean {
  return err !== undefined && MODERN_ERROR_CODES.has(err.code);
}

/**
 * A refusal that proves the server now speaks 2026-07-28: a modern JSON-RPC error object, or
 * an HTTP 400 error whose body holds one (a legacy transport reports a 4xx as an Error with
 * the body in its message). A reconnect that gets one gives up, so the upstream restarts and
 * probes the era again (resilientTransport.ts).
 */
export function refusedAs2026(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; status?: unknown; message?: unknown };
  if (typeof e.code === 'number' && MODERN_ERROR_CODES.has(e.code)) return true;
  return e.status === 400 && typeof e.message === 'string' && /"code"\s*:\s*-3202[012]\b/.test(e.message);
}

/** `data.supported` of an UnsupportedProtocolVersion error, when it has one. */
export function supportedVersionsOf(err: RpcErrorObject): string[] {
  const data = err.data as { supported?: unknown } | undefined;
  return Array.isArray(data?.supported) ? data.supported.filter((v): v is string => typeof v === 'string') : [];
}

export interface Envelope {
  clientInfo: { name: string; version: string };
  /** The client capabilities declared on every request (2026-07-28 names, `{}` for none). */
  clientCapabilities: Record<string, unknown>;
}

/**
 * `params` with the per-request envelope merged into its `_meta`. Envelope keys a modern
 * client already set (one being passed through) are kept: they describe that client.
 */
export function withEnvelope(params: Record<string, unknown> | undefined, env: Envelope): Record<string, unknown> {
  const meta = (params?._meta as Record<string, unknown> | undefined) ?? {};
  if (typeof meta[META_PROTOCOL_VERSION] === 'string') return params!;
  return {
    ...params,
    _meta: {
      ...meta,
      [META_PROTOCOL_VERSION]: REV2026_PROTOCOL_VERSION,
      [META_CLIENT_INFO]: env.clientInfo,
      [META_CLIENT_CAPABILITIES]: env.clientCapabilities,
    },
  };
}

/** A `server/discover` result that names 2026-07-28 among its versions. */
export function isDiscoverResult(r: Record<string, unknown> | undefined): boolean {
  return Array.isArray(r?.supportedVersions) && (r.supportedVersions as unknown[]).includes(REV2026_PROTOCOL_VERSION);
}

/**
 * The record the proxy keeps per server (its `initResult`), built from a DiscoverResult:
 * the same fields an `initialize` result has, so status, aggregation and instructions work
 * unchanged for a modern server. A server with the tasks extension also gets the 2025
 * `tasks` capability the proxy serves its 2025 clients for it (protocol/crossings/inputRoundTasks.ts: task-
 * augmented `tools/call`, `tasks/cancel`, and `tasks/list` answered by the proxy).
 */
export function initRecordFromDiscover(d: Record<string, unknown>): Record<string, unknown> {
  const meta = (d._meta as Record<string, unknown> | undefined) ?? {};
  let capabilities = (d.capabilities as Record<string, unknown> | undefined) ?? {};
  const extensions = capabilities.extensions as Record<string, unknown> | undefined;
  if (extensions?.[TASKS_EXTENSION] && capabilities.tasks === undefined) {
    capabilities = { ...capabilities, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
  }
  const out: Record<string, unknown> = {
    protocolVersion: REV2026_PROTOCOL_VERSION,
    capabilities,
    serverInfo: (meta[META_SERVER_INFO] as Record<string, unknown> | undefined) ?? { name: 'unknown', version: '0' },
  };
  if (typeof d.instructions === 'string') out.instructions = d.instructions;
  return out;
}
