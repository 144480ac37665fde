/**
 * Connecting to a server of either era (the two hooks upstream.ts and upstreamTransport.ts
 * call). The entry's `protocol` forces one; "auto" (the default) probes:
 *
 * - remote (url, streamable HTTP): `server/discover` first (upstream/httpRevisionProbe.ts), the fallback
 *   the HTTP binding documents; a modern server gets a Rev2026HttpClientTransport, a legacy
 *   one the transports of today (and its `initialize`);
 * - stdio: `initialize` first, so a 2025 server starts exactly as before (no probe, no
 *   timeout to wait out for a server that ignores unknown pre-initialize requests); when
 *   `initialize` is refused with a JSON-RPC error, `server/discover` on the same process, and
 *   a DiscoverResult makes the server modern (a 2026-only server names its versions in that
 *   refusal, as 2026-07-28 "Versioning" asks).
 *
 * A modern server's transport is patched by protocol/rev2026-07-28/envelopedTransport.ts, its DiscoverResult kept as the
 * server's `initResult`, and one `subscriptions/listen` is opened for the list changes it
 * declares, so cached lists refresh as they do on a 2025 `list_changed`; resource
 * subscriptions are a listen of their own (protocol/rev2026-07-28/resourceListen.ts).
 *
 * Re-probing: every start of an upstream (the first, a restart after a crash, a restart on
 * demand, a reload) builds its transport and runs this again, so a server that came back in
 * the other era is spoken to in that era. A modern HTTP transport closes itself when the
 * connection fails or a reply stream is cut (protocol/rev2026-07-28/httpClientTransport.ts); a legacy one's
 * reconnect gives up when the replayed `initialize` is refused in the modern way
 * (resilientTransport.ts): both end in a restart, hence a new probe.
 */
import type { ServerEntry } from '../config/config.js';
import type { Logger } from '../common/logger.js';
import { withDeadline } from '../common/deadline.js';
import { ErrorCode, RpcRequestError } from '../jsonrpc/jsonRpc.js';
import type { JsonRpcPeer } from '../jsonrpc/jsonRpcPeer.js';
import type { ListCache } from './listCache.js';
import { CLIENT_INFO, handshake } from './upstreamHandshake.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { probeHttpRevision } from './httpRevisionProbe.js';
import { Rev2026HttpClientTransport } from '../protocol/rev2026-07-28/httpClientTransport.js';
import {
  initRecordFromDiscover,
  isDiscoverResult,
  TASKS_EXTENSION,
  type Envelope,
} from '../protocol/rev2026-07-28/vocabulary.js';
import { speak2026 } from '../protocol/rev2026-07-28/envelopedTransport.js';
import { ResourceListen2026 } from '../protocol/rev2026-07-28/resourceListen.js';

/**
 * The envelope of the discover probe. Later requests declare what the proxy declares in a
 * 2025 `initialize` (the entry's clientCapabilities, none by default: a server that needs
 * one answers -32021, which reaches the client as is); an `input_required` for them is
 * turned into server-to-client requests for a 2025 client (protocol/crossings/inputRounds.ts).
 */
export const PROXY_ENVELOPE: Envelope = { clientInfo: CLIENT_INFO, clientCapabilities: {} };

const PROBE_TIMEOUT_MS = 5_000;

/** The part of upstreamTransport.ts's BuiltTransport this needs (no import: no cycle). */
interface BuiltTransport {
  transport: Transport;
  kind: 'stdio' | 'http' | 'sse';
  revision?: '2026-07-28';
  resourceListen?: ResourceListen2026;
}

/**
 * The transport for a remote entry that speaks 2026-07-28, or undefined for a legacy one
 * (then the caller builds today's transport). Only streamable-HTTP entries are probed: SSE
 * and our own bridge's stream link are 2025-era.
 */
export async function probedRemoteTransport(
  entry: ServerEntry & { kind: 'remote' },
  headers: Record<string, string>,
  logger: Logger,
): Promise<BuiltTransport | undefined> {
  const protocol = entry.protocol ?? 'auto';
  if (protocol === '2025-11-25' || entry.type === 'sse' || entry.type === 'bridge') return undefined;
  if (protocol === 'auto') {
    const timeoutMs = Math.min(PROBE_TIMEOUT_MS, entry.connectionTimeoutMs);
    if ((await probeHttpRevision(entry.url, headers, PROXY_ENVELOPE, { timeoutMs, logger })) === '2025-11-25')
      return undefined;
  }
  return {
    transport: new Rev2026HttpClientTransport(new URL(entry.url), { headers, logger }),
    kind: 'http',
    revision: '2026-07-28',
  };
}

interface HandshakeOptions {
  id: string;
  timeoutMs: number;
  startedAt?: number;
  capabilities: Record<string, unknown>;
}

/** The handshake for either era; resolves with the server's initialize-shaped record. */
export async function revisionHandshake(
  peer: JsonRpcPeer,
  built: BuiltTransport,
  lists: ListCache,
  entry: ServerEntry,
  opts: HandshakeOptions,
  logger: Logger,
): Promise<Record<string, unknown>> {
  const modern = built.revision === '2026-07-28' || (built.kind === 'stdio' && entry.protocol === '2026-07-28');
  if (modern) return handshake2026(peer, built, lists, opts, true, logger);
  if (built.kind !== 'stdio' || entry.protocol === '2025-11-25') return handshake(peer, lists, opts);
  try {
    return await handshake(peer, lists, opts);
  } catch (err) {
    // Refused (not cut off, not timed out): perhaps a server that speaks only 2026-07-28.
    if (
      !(err instanceof RpcRequestError) ||
      err.code === ErrorCode.ConnectionClosed ||
      err.code === ErrorCode.RequestTimeout
    )
      throw err;
    logger.debug(`initialize refused (${err.message}); trying server/discover`);
    return handshake2026(peer, built, lists, opts, false, logger).catch(() => {
      throw err;
    });
  }
}

async function handshake2026(
  peer: JsonRpcPeer,
  built: BuiltTransport,
  lists: ListCache,
  opts: HandshakeOptions,
  start: boolean,
  logger: Logger,
): Promise<Record<string, unknown>> {
  const end = (opts.startedAt ?? Date.now()) + opts.timeoutMs;
  const left = () => Math.max(1, end - Date.now());
  // What the proxy can route to its clients (the entry's clientCapabilities), as for initialize,
  // with its extensions (MCP Apps), and the tasks extension: the proxy follows a task to its end for a 2025 client (protocol/crossings/inputRoundTasks.ts).
  const declared = opts.capabilities.extensions as Record<string, unknown> | undefined;
  const clientCapabilities = { ...opts.capabilities, extensions: { ...declared, [TASKS_EXTENSION]: {} } };
  const resources = new ResourceListen2026(peer, logger);
  speak2026(built.transport, { ...PROXY_ENVELOPE, clientCapabilities }, (id, n) => resources.acknowledged(id, n));
  if (start) await withDeadline(peer.start(), left(), `no answer to the connection within ${opts.timeoutMs} ms`);
  const discover = await withDeadline(
    peer.call('server/discover'),
    left(),
    `no answer to server/discover within ${opts.timeoutMs} ms`,
  );
  if (!isDiscoverResult(discover)) throw new Error('the server/discover answer does not offer MCP 2026-07-28');
  built.revision = '2026-07-28';
  built.resourceListen = resources;
  const init = initRecordFromDiscover(discover);
  const caps = init.capabilities as Record<string, Record<string, unknown> | undefined>;
  await withDeadline(lists.refreshAll(caps), left(), `no answer to the first lists within ${opts.timeoutMs} ms`);
  listen(peer, caps, logger);
  return init;
}

/** One `subscriptions/listen` for the list changes the server declares; it lives as long as the connection. */
function listen(peer: JsonRpcPeer, caps: Record<string, Record<string, unknown> | undefined>, logger: Logger): void {
  const notifications: Record<string, boolean> = {};
  if (caps.tools?.listChanged) notifications.toolsListChanged = true;
  if (caps.prompts?.listChanged) notifications.promptsListChanged = true;
  if (caps.resources?.listChanged) notifications.resourcesListChanged = true;
  if (Object.keys(notifications).length === 0) return;
  void peer.request('subscriptions/listen', { notifications }, { timeoutMs: 0 }).then((res) => {
    if ('error' in res && res.error.code !== ErrorCode.ConnectionClosed)
      logger.debug(`subscriptions/listen refused: ${res.error.message}`);
  });
}
