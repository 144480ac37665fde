/**
 * The client side of the MCP handshake with one server, bounded in time: transport start,
 * `initialize` (declaring the client capabilities it is given: see clientCapabilities.ts),
 * `notifications/initialized`, then every list fetched into the cache.
 */
import { LATEST_PROTOCOL_VERSION } from './protocolVersion.js';
import type { JsonRpcPeer } from './rpc/jsonRpcPeer.js';
import type { ListCache } from './listCache.js';
import { withDeadline } from './deadline.js';

declare const __QIMING_VERSION__: string | undefined;
export const CLIENT_INFO = { name: 'qiming-mcp-stdio-proxy', version: typeof __QIMING_VERSION__ === 'string' ? __QIMING_VERSION__ : '0.0.0' };

export async function handshake(
  peer: JsonRpcPeer,
  lists: ListCache,
  opts: { id: string; timeoutMs: number; reconnecting: boolean; capabilities: Record<string, unknown> },
): Promise<Record<string, unknown>> {
  const { id, timeoutMs } = opts;
  await withDeadline(peer.start(), timeoutMs, `server "${id}" did not start within ${timeoutMs} ms`);
  const init = await withDeadline(
    peer.call('initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: opts.capabilities,
      clientInfo: CLIENT_INFO,
    }),
    // A reconnecting transport holds the initialize until the server is reachable.
    opts.reconnecting ? 0 : timeoutMs,
    `server "${id}" did not answer initialize within ${timeoutMs} ms`,
  );
  await peer.notify('notifications/initialized');
  const capabilities = (init.capabilities as Record<string, unknown>) ?? {};
  await withDeadline(lists.refreshAll(capabilities), timeoutMs, `server "${id}" did not list its tools within ${timeoutMs} ms`);
  return init;
}
