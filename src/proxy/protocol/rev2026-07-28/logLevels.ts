/**
 * Log levels across eras, and what of the hub's notifications reaches a 2026-07-28 session.
 *
 * 2026-07-28 has no `logging/setLevel`: a request carries `_meta["io.modelcontextprotocol/
 * logLevel"]`, and `notifications/message` is request-scoped (only on the stream of a request
 * that set a level, at or above it). So, for a modern session, a server's log message goes
 * out only with a call of that session in flight that asked for logs, filtered by that
 * call's level (a 2025 server broadcasts its logs: the hub relates them to the session's
 * call in flight); `notifications/resources/updated` goes to the listens that asked for its
 * URI; anything else unrelated to a request is dropped (the revision has no other channel).
 *
 * A 2025 session's `logging/setLevel` is recorded on the session (routeRequest.ts) and, for
 * a 2026 server, which has no such method, answered locally and sent as the per-request
 * level on each of that session's requests to it ({@link withLogLevel}). The other way
 * round, a 2026 request's level is NOT turned into `logging/setLevel` on a 2025 server: the
 * level of a 2025 server is one per connection, and the connection is shared, so setting it
 * would change what every other session of that server receives; the 2025 server keeps the
 * level its 2025 clients set (or its default), and a modern client gets what it emits at or
 * above the level the request asked for.
 */
import type { RequestId } from '../../jsonrpc/jsonRpc.js';
import type { ListenSet } from './listenSet.js';

export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
/** RFC 5424 severities, least severe first. */
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export function isLogLevel(v: unknown): v is string {
  return typeof v === 'string' && LEVELS.includes(v);
}

/** The per-request log level of a request's params, if it has a valid one. */
export function requestLogLevel(params: Record<string, unknown> | undefined): string | undefined {
  const level = (params?._meta as Record<string, unknown> | undefined)?.[META_LOG_LEVEL];
  return isLogLevel(level) ? level : undefined;
}

/** `params` asking a 2026 server for logs at `level` and above (a level already there is kept). */
export function withLogLevel(params: Record<string, unknown>, level: string): Record<string, unknown> {
  const meta = (params._meta as Record<string, unknown> | undefined) ?? {};
  return META_LOG_LEVEL in meta ? params : { ...params, _meta: { ...meta, [META_LOG_LEVEL]: level } };
}

/** Delivers one hub notification to a modern session (its peer, listens and per-request levels), by the rules of the header. */
export function notify2026(
  peer: { notify(method: string, params?: Record<string, unknown>, relatedRequestId?: RequestId): Promise<void> },
  listens: ListenSet | undefined,
  levels: ReadonlyMap<RequestId, string> | undefined,
  method: string,
  params: Record<string, unknown> | undefined,
  related: RequestId | undefined,
): void {
  if (method === 'notifications/resources/updated') return listens?.resourceUpdated(params);
  if (related === undefined) return;
  if (method === 'notifications/message') {
    const min = levels?.get(related);
    if (min === undefined || LEVELS.indexOf(String(params?.level)) < LEVELS.indexOf(min)) return;
  }
  void peer.notify(method, params, related);
}
