/**
 * `convert` where one end speaks MCP 2026-07-28 (see "Two eras of MCP" in
 * docs/ARCHITECTURE.md). The pipe of convertMode.ts serves only a 2025 client of a 2025
 * server: a 2025 client's `initialize` has no counterpart on a 2026 server, and a 2026
 * client's `server/discover`, envelope and `subscriptions/listen` have none on a 2025 one.
 * Either way the one server is served like a one-server stdio aggregation in its own scope
 * (names unprefixed, its capabilities, instructions and serverInfo in the `initialize` or
 * `server/discover` answer), and the hub does the era work for a client of either era:
 *
 * - a 2026 server (`runConvertThroughHub`): probed once (`server/discover`, as for a remote
 *   entry) unless the entry's `protocol` says; undefined means "not modern: use the pipe";
 * - a 2025 server whose client opens with a 2026 request (`serve2026Client`): the pipe
 *   hands its stdio transport, and the message it read, to a hub at that first message.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Hub } from '../hub/hub.js';
import type { CliOptions } from '../cli/cliArgs.js';
import { parseConfig, type RemoteEntry } from '../config/config.js';
import type { ToolFilter } from '../config/toolFilter.js';
import { errorText, type Logger } from '../common/logger.js';
import { redactUrl } from '../config/redact.js';
import type { OAuthSettings } from '../oauth/oauthSettings.js';
import { probeHttpRevision } from '../upstream/httpRevisionProbe.js';
import { PROXY_ENVELOPE } from '../upstream/revisionConnect.js';
import { PROBE_TIMEOUT_MS } from '../upstream/transportProbe.js';
import { serveHubOverStdio } from './hubOverStdio.js';
import { pinFolder } from '../pinning/pinFolder.js';
import type { ConvertTrust } from './convertTrust.js';

export interface Rev2026Target {
  id: string;
  url: string;
  kind: 'auto' | 'http' | 'sse';
  headers: Record<string, string>;
  filter: ToolFilter;
  protocol?: string;
  /** The entry's clientCapabilities flags (a `--url` convert has none). */
  clientCapabilities?: Record<string, boolean | undefined>;
  pingIntervalMs?: number;
  pingTimeoutMs?: number;
  oauth?: OAuthSettings | false;
  /** The approval policy and pinning a config gives this entry (convertTrust.ts); none: plain pass-through. */
  trust?: ConvertTrust;
}

/** A hub of the one server `target`, spoken to over `type` in era `protocol`. */
function convertHub(
  opts: CliOptions,
  target: Rev2026Target,
  type: 'http' | 'sse',
  protocol: '2025-11-25' | '2026-07-28',
  logger: Logger,
): Hub {
  const entry = {
    url: target.url,
    headers: target.headers,
    type,
    protocol,
    clientCapabilities: target.clientCapabilities,
  };
  const config = parseConfig({ mcpServers: { [target.id]: entry } }, { env: {} });
  const server = config.servers[0] as RemoteEntry;
  server.toolFilter = target.filter;
  if (target.pingIntervalMs !== undefined) server.pingIntervalMs = target.pingIntervalMs;
  if (target.pingTimeoutMs !== undefined) server.pingTimeoutMs = target.pingTimeoutMs;
  if (target.oauth !== undefined) server.oauth = target.oauth;
  const trust = target.trust;
  // Without a config's settings (a `--url`, or `"off"` for both), the hub passes calls and lists through as the pipe does.
  if (!trust) config.approval = { top: 'off', servers: {}, hints: 'destructive', askTimeoutMs: 0 };
  else if (trust.approval) config.approval = trust.approval;
  if (trust && trust.pinning !== 'off') server.pinning = trust.pinning;
  return new Hub(config, logger, {
    drainOnEofMs: opts.drainTimeoutMs,
    maxMessageBytes: opts.maxMessageBytes,
    ...(trust && trust.pinning !== 'off' ? { pinDir: pinFolder(), pinDefault: trust.pinning } : {}),
  });
}

/**
 * Serves the 2025 server `target` (reached over `kind`) through a one-server hub from the
 * first message on: a config entry whose approval policy or pinning is in force
 * (convertTrust.ts), which the pipe cannot apply.
 */
export function serveTrustedConvert(
  opts: CliOptions,
  target: Rev2026Target,
  kind: 'http' | 'sse',
  logger: Logger,
): Promise<number> {
  logger
    .child('convert')
    .info(`serving "${target.id}" through a one-server hub: its approval policy or pinning is in force`);
  return serveHubOverStdio(convertHub(opts, target, kind, '2025-11-25', logger), opts, logger, { serverId: target.id });
}

export async function runConvertThroughHub(
  opts: CliOptions,
  target: Rev2026Target,
  logger: Logger,
): Promise<number | undefined> {
  if (target.kind === 'sse' || target.protocol === '2025-11-25') return undefined;
  const log = logger.child('convert');
  if (target.protocol !== '2026-07-28') {
    const era = await probeHttpRevision(target.url, target.headers, PROXY_ENVELOPE, {
      timeoutMs: PROBE_TIMEOUT_MS,
      logger: log,
    }).catch((err: Error) => {
      log.debug(`era probe failed (${errorText(err)}); using the 2025 pipe`);
      return '2025-11-25' as const;
    });
    if (era === '2025-11-25') return undefined;
  }
  log.info(`exposing ${redactUrl(target.url)} (MCP 2026-07-28, streamable HTTP) over stdio`);
  const { oauth: _none, ...rest } = target; // a 2026-only server behind OAuth is not reached yet
  return serveHubOverStdio(convertHub(opts, rest, 'http', '2026-07-28', logger), opts, logger, { serverId: target.id });
}

/**
 * A started transport given to a new owner together with the message it already read: the
 * owner's `start()` delivers that message first, then everything else as it comes.
 */
class HandedOverTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onerror?: Transport['onerror'];
  onclose?: Transport['onclose'];

  constructor(
    private readonly inner: Transport,
    private readonly first: JSONRPCMessage,
  ) {}

  start(): Promise<void> {
    this.inner.onmessage = (m, extra) => this.onmessage?.(m, extra);
    this.inner.onerror = (e) => this.onerror?.(e);
    this.inner.onclose = () => this.onclose?.();
    // Before any further input event (an end of input right behind that message included).
    queueMicrotask(() => this.onmessage?.(this.first));
    return Promise.resolve();
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * Serves a 2026-07-28 client of the 2025 server `target` (reached over `kind`) on
 * `downstream`, the pipe's started stdio transport, from its first message `first` on.
 * Resolves with the stop of what it started (the session, then the server's connection).
 */
export function serve2026Client(
  opts: CliOptions,
  target: Rev2026Target,
  kind: 'http' | 'sse',
  logger: Logger,
  downstream: Transport,
  first: JSONRPCMessage,
  onClosed: () => void,
): () => Promise<void> {
  logger.child('convert').info('the client speaks MCP 2026-07-28: serving it through a one-server hub');
  const hub = convertHub(opts, target, kind, '2025-11-25', logger);
  const session = hub.connect(new HandedOverTransport(downstream, first), { serverId: target.id }, onClosed);
  hub.start().catch((err) => logger.error(`start failed: ${errorText(err)}`));
  void session.start();
  return async () => {
    await session.close();
    await hub.stop();
  };
}
