/**
 * Builds the client transport for one configured server: a process-tree-safe child for
 * stdio entries; the bridge's stream link for `bridge` entries; streamable HTTP (our
 * LeanHttpClientTransport) or SSE (the SDK's) for other remote ones (a `url` with no type
 * probes streamable HTTP first and falls back to SSE). Every remote transport is wrapped in
 * the ResilientTransportWrapper so it reconnects and replays `initialize`.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ChildProcessTransport } from '../process/childProcessTransport.js';
import { StreamClientTransport } from './streamClientTransport.js';
import { ResilientTransportWrapper, type ResilientState } from './resilientTransport.js';
import { PROBE_TIMEOUT_MS, probeTransport } from './transportProbe.js';
import { sseClientUpstream } from './sseClientUpstream.js';
import { sseWithSignIn } from './sseSignIn.js';
import type { ServerEntry } from '../config/config.js';
import type { Logger } from '../common/logger.js';
import { oauthFor } from '../oauth/oauthRegistry.js';
import type { RequestAuth } from '../oauth/oauthSettings.js';
import { probedRemoteTransport } from './revisionConnect.js';
import { serverMessageLimit } from '../common/messageLimits.js';
import type { ResourceListen2026 } from '../protocol/rev2026-07-28/resourceListen.js';

export interface UpstreamTransportHooks {
  logger: Logger;
  onresilientstate?: (state: ResilientState, reason?: string) => void;
  onstderr?: (line: string) => void;
  /** The cap on a client's messages (`--max-message-bytes`); a server's may be twice that (common/messageLimits.ts). */
  maxMessageBytes?: number;
}

/** How an Upstream gets its transport. */
export interface UpstreamTransportOptions {
  /** The cap on a client's messages (`--max-message-bytes`); a server's may be twice that (common/messageLimits.ts). */
  maxMessageBytes?: number;
  /** Test seam: the transport to use instead of the configured one (unset in real use). */
  transportFactory?: (entry: ServerEntry) => Transport;
}

export interface BuiltTransport {
  transport: Transport;
  child?: ChildProcessTransport;
  resilient?: ResilientTransportWrapper;
  kind: 'stdio' | 'http' | 'sse';
  /** Set when the server speaks 2026-07-28 (upstream/revisionConnect.ts); absent for 2025-11-25. */
  revision?: '2026-07-28';
  /** A modern server's resource subscriptions (protocol/rev2026-07-28/resourceListen.ts). */
  resourceListen?: ResourceListen2026;
}

/**
 * One remote transport of a fixed kind. Streamable HTTP uses our `node:http` client (the
 * SDK's undici/Web-streams client cost ~3.4 ms of CPU per call); SSE stays on the SDK. Both are
 * loaded on first use (files of their own beside the CLI, scripts/buildProxy.mjs), so that a
 * start without such servers, the app's proxy in front of the bridge among them, never reads them.
 */
export async function remoteTransport(
  kind: 'http' | 'sse',
  url: string,
  headers: Record<string, string>,
  logger?: Logger,
  auth?: RequestAuth,
): Promise<Transport> {
  const u = new URL(url);
  if (kind === 'http')
    return new (await import('./leanHttpClientTransport.js')).LeanHttpClientTransport(u, { headers, logger, auth });
  // SSE: the sign-in's token on each new stream, and a refused start handed to it.
  return auth ? sseWithSignIn(u, headers, auth) : sseClientUpstream(u, headers);
}

export async function buildUpstreamTransport(
  entry: ServerEntry,
  hooks: UpstreamTransportHooks,
): Promise<BuiltTransport> {
  if (entry.kind === 'stdio') {
    // The process code (spawn, PATH, process groups) is a file of its own beside the CLI, which
    // a start with remote servers only (the app's proxy in front of the bridge) never reads.
    const { ChildProcessTransport } = await import('../process/childProcessTransport.js');
    const child = new ChildProcessTransport({
      command: entry.command,
      args: entry.args,
      ...(entry.argSecrets ? { argSecrets: entry.argSecrets } : {}),
      env: entry.env,
      cwd: entry.cwd,
      name: entry.id,
      logger: hooks.logger,
      maxMessageBytes: serverMessageLimit(hooks.maxMessageBytes),
      ...(entry.sandbox ? { sandbox: entry.sandbox } : {}),
    });
    if (hooks.onstderr) child.onstderr = hooks.onstderr;
    return { transport: child, child, kind: 'stdio' };
  }
  const headers = { ...entry.headers };
  const modern = await probedRemoteTransport(entry, headers, hooks.logger);
  if (modern) return modern;
  let kind: 'http' | 'sse' = entry.type === 'sse' ? 'sse' : 'http';
  const auth = await oauthFor(entry);
  if (entry.type === 'auto') {
    // Strict: a refusal, a 401 or no answer fails this start now, within the connection timeout
    // (a 401 with a Bearer challenge under a sign-in is streamable HTTP's to handle).
    const authorization = await auth?.authorization();
    kind = await probeTransport(entry.url, authorization ? { ...headers, Authorization: authorization } : headers, {
      logger: hooks.logger,
      strict: true,
      timeoutMs: Math.min(PROBE_TIMEOUT_MS, entry.connectionTimeoutMs),
      bearerIsHttp: auth !== undefined,
    });
  }
  // Our own bridge is reached over its stream link (bridge/mcpStream.ts): one upgraded
  // connection, newline JSON-RPC on it, as cheap per call as a pipe.
  const streamLink = entry.type === 'bridge' && new URL(entry.url).protocol === 'http:';
  const resilient = new ResilientTransportWrapper({
    factory: () =>
      streamLink
        ? new StreamClientTransport(new URL(entry.url), {
            headers,
            logger: hooks.logger,
            maxMessageBytes: serverMessageLimit(hooks.maxMessageBytes),
          })
        : remoteTransport(kind, entry.url, headers, hooks.logger, auth),
    heartbeatIntervalMs: entry.pingIntervalMs,
    heartbeatTimeoutMs: entry.pingTimeoutMs,
    attemptTimeoutMs: entry.connectionTimeoutMs,
    logger: hooks.logger,
    onstatechange: hooks.onresilientstate,
  });
  return { transport: resilient, resilient, kind };
}
