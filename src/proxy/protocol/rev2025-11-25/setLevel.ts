/**
 * `logging/setLevel`, a 2025-11-25 request (2026-07-28 refuses it: envelope.ts): the level is
 * recorded on the session, for the 2026-07-28 servers it reaches, which have no such method
 * and get it as the per-request level on each of that session's requests to them
 * (rev2026-07-28/logLevels.ts: withLogLevel); and sent to the 2025 servers in scope.
 */
import { ErrorCode, type RpcRequest } from '../../jsonrpc/jsonRpc.js';
import type { RoutingSession, SessionHost } from '../../hub/sessionContracts.js';
import type { Upstream } from '../../upstream/upstream.js';
import { isLogLevel, withLogLevel } from '../rev2026-07-28/logLevels.js';

/** Sets `s`'s log level: on a single 2025 server, its own answer; otherwise answered here. */
export function setLevel(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void> {
  const p = req.params ?? {};
  if (isLogLevel(p.level)) s.logLevel = p.level;
  if (s.single && !s.single.speaks2026) return s.forward(req, s.single, p);
  if (!isLogLevel(p.level))
    return s.fail(req.id, {
      code: ErrorCode.InvalidParams,
      message: `Invalid params: unknown log level ${JSON.stringify(p.level)}`,
    });
  for (const u of s.single ? [] : hub.inScope(s.scope)) {
    if (u.isReady && u.capabilities.logging && !u.speaks2026)
      void u.forward(req.method, p, { timeoutMs: u.entry.timeoutMs });
  }
  return s.reply(req.id, {});
}

/** `params` of a session's request to `u` with the session's `level` when `u` speaks 2026-07-28 (as it is otherwise). */
export function levelToServer(u: Upstream, params: Record<string, unknown>, level: string): Record<string, unknown> {
  return u.speaks2026 ? withLogLevel(params, level) : params;
}
