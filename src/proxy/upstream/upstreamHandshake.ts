/**
 * The client side of the MCP handshake with one server, bounded in time: transport start,
 * `initialize` (declaring the client capabilities it is given: see clientCapabilities.ts),
 * `notifications/initialized`, then every list fetched into the cache.
 */
import { LATEST_PROTOCOL_VERSION } from '../common/protocolVersion.js';
import type { JsonRpcPeer } from '../jsonrpc/jsonRpcPeer.js';
import type { ListCache } from './listCache.js';
import { withDeadline } from '../common/deadline.js';

declare const __QIMING_VERSION__: string | undefined;
export const CLIENT_INFO = {
  name: 'qiming-mcp-stdio-proxy',
  version: typeof __QIMING_VERSION__ === 'string' ? __QIMING_VERSION__ : '0.0.0',
};

/**
 * `timeoutMs` (the entry's connectionTimeoutMs) bounds the whole handshake, counted from
 * `startedAt` (when the connection began, a transport probe included), for every kind of
 * upstream: a remote one is never waited for longer, reconnecting wrapper or not.
 */
export async function handshake(
  peer: JsonRpcPeer,
  lists: ListCache,
  opts: { id: string; timeoutMs: number; startedAt?: number; capabilities: Record<string, unknown> },
): Promise<Record<string, unknown>> {
  const { timeoutMs } = opts;
  const end = (opts.startedAt ?? Date.now()) + timeoutMs;
  // At least 1 ms: 0 would mean "no bound" to withDeadline.
  const left = () => Math.max(1, end - Date.now());
  await withDeadline(peer.start(), left(), `no answer to the connection within ${timeoutMs} ms`);
  const init = await withDeadline(
    peer.call('initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: opts.capabilities,
      clientInfo: CLIENT_INFO,
    }),
    left(),
    `no answer to initialize within ${timeoutMs} ms`,
  );
  await peer.notify('notifications/initialized');
  const capabilities = (init.capabilities as Record<string, unknown>) ?? {};
  await withDeadline(lists.refreshAll(capabilities), left(), `no answer to the first lists within ${timeoutMs} ms`);
  return init;
}
