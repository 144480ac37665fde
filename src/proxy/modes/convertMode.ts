/**
 * Convert: one remote MCP server (streamable HTTP or SSE) exposed over stdio. Messages pass
 * through untouched in both directions (any method, any field); the reconnecting wrapper
 * keeps the connection and replays `initialize`. Tool filters, when given, are the only
 * rewrite: filtered tools vanish from `tools/list` and calling one is refused. Where one end
 * speaks MCP 2026-07-28 (the server, or the client's first message), a hub serves instead
 * (modes/convertThroughHub.ts).
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StdioServerTransport } from '../stdio/stdioServerTransport.js';
import { ResilientTransportWrapper } from '../upstream/resilientTransport.js';
import { remoteTransport } from '../upstream/upstreamTransport.js';
import { probeTransport } from '../upstream/transportProbe.js';
import { installLifecycle, lifecycleFlags } from '../cli/lifecycle.js';
import { loadRunConfig } from '../cli/loadCliConfig.js';
import { UsageError, type CliOptions } from '../cli/cliArgs.js';
import { ConfigError } from '../config/configError.js';
import { isToolAllowed, mergeFilters, type ToolFilter } from '../config/toolFilter.js';
import { ErrorCode, isRequest, isResponse, type RequestId, type RpcMessage } from '../jsonrpc/jsonRpc.js';
import { headerSecrets, redactUrl, urlSecrets } from '../config/redact.js';
import type { Logger } from '../common/logger.js';
import { installOAuth, OAuthRegistry } from '../oauth/oauthRegistry.js';
import type { OAuthSettings } from '../oauth/oauthSettings.js';
import { isRev2026Request } from '../protocol/rev2026-07-28/envelope.js';
import { runConvertThroughHub, serve2026Client, serveTrustedConvert } from './convertThroughHub.js';
import { convertTrust, type ConvertTrust } from './convertTrust.js';

interface Target {
  id: string;
  protocol?: string;
  clientCapabilities?: Record<string, boolean | undefined>;
  url: string;
  kind: 'auto' | 'http' | 'sse';
  headers: Record<string, string>;
  filter: ToolFilter;
  pingIntervalMs?: number;
  pingTimeoutMs?: number;
  oauth?: OAuthSettings | false;
  trust?: ConvertTrust;
}

async function resolveTarget(opts: CliOptions, logger: Logger): Promise<Target> {
  const cliFilter: ToolFilter = {
    ...(opts.allowTools ? { allowExact: opts.allowTools } : {}),
    ...(opts.denyTools ? { denyExact: opts.denyTools } : {}),
  };
  const kind = (opts.transport ?? 'auto') as Target['kind'];
  if (opts.url)
    return {
      id: 'remote',
      url: opts.url,
      kind,
      headers: opts.headers,
      filter: cliFilter,
      pingIntervalMs: opts.pingIntervalMs,
      pingTimeoutMs: opts.pingTimeoutMs,
    };
  // `${secret:NAME}`s come from the secret store, as in the other modes (a missing one fails the entry, naming it).
  const config = await loadRunConfig(opts, logger);
  // Convert runs one entry: a bad one is fatal when it is the one named, or when none is
  // named (the entry meant may be among the bad ones).
  const bad = (config.invalid ?? []).filter((e) => !opts.name || e.id === opts.name);
  if (bad.length) throw new ConfigError(bad.flatMap((e) => e.issues));
  const remotes = config.servers.filter((s) => s.kind === 'remote');
  const entry = opts.name
    ? config.servers.find((s) => s.id === opts.name)
    : remotes.length === 1
      ? remotes[0]
      : undefined;
  if (!entry) {
    throw new UsageError(
      opts.name
        ? `no server "${opts.name}" in the config`
        : `the config has ${remotes.length} remote servers: pick one with --name`,
    );
  }
  if (entry.kind !== 'remote') throw new UsageError(`server "${entry.id}" is not a remote (url) server`);
  return {
    id: entry.id,
    protocol: entry.protocol,
    clientCapabilities: entry.clientCapabilities,
    url: entry.url,
    kind: opts.transport ? kind : entry.type === 'sse' ? 'sse' : entry.type === 'auto' ? 'auto' : 'http',
    headers: { ...entry.headers, ...opts.headers },
    filter: mergeFilters(entry.toolFilter, cliFilter),
    pingIntervalMs: opts.pingIntervalMs ?? entry.pingIntervalMs,
    pingTimeoutMs: opts.pingTimeoutMs ?? entry.pingTimeoutMs,
    oauth: entry.oauth,
    trust: convertTrust(config, entry),
  };
}

export async function runConvertMode(opts: CliOptions, logger: Logger): Promise<number> {
  const target = await resolveTarget(opts, logger);
  logger.secrets.add([...headerSecrets(target.headers), ...urlSecrets(target.url)]);
  // A server that speaks only 2026-07-28 cannot be piped to: the hub serves it (modes/convertThroughHub.ts).
  const modern = await runConvertThroughHub(opts, target, logger);
  if (modern !== undefined) return modern;
  const log = logger.child('convert');
  // One client and nothing else to serve: a request that needs a sign-in waits for it.
  const registry = new OAuthRegistry({ logger, waitForSignIn: true });
  installOAuth(registry);
  const auth = await registry.forEntry({
    id: 'convert',
    url: target.url,
    type: target.kind,
    headers: target.headers,
    oauth: target.oauth,
  });
  const authorization = await auth?.authorization();
  const probeHeaders = authorization ? { ...target.headers, Authorization: authorization } : target.headers;
  const kind =
    target.kind === 'auto'
      ? await probeTransport(target.url, probeHeaders, { logger: log, bearerIsHttp: auth !== undefined })
      : target.kind;
  log.info(`exposing ${redactUrl(target.url)} (${kind === 'http' ? 'streamable HTTP' : 'SSE'}) over stdio`);
  // The entry's approval policy or pinning is in force: a one-server hub applies them (convertTrust.ts).
  if (target.trust) return serveTrustedConvert(opts, target, kind, logger);
  const upstream = new ResilientTransportWrapper({
    factory: () => remoteTransport(kind, target.url, target.headers, undefined, auth),
    retryBeforeEstablished: true,
    heartbeatIntervalMs: target.pingIntervalMs,
    heartbeatTimeoutMs: target.pingTimeoutMs,
    logger: log,
    onstatechange: (s, reason) => log.info(`upstream ${s}${reason ? `: ${reason}` : ''}`),
  });
  const downstream = new StdioServerTransport({
    idleTimeoutMs: opts.idleTimeoutMs,
    maxMessageBytes: opts.maxMessageBytes,
    logger: logger.child('stdio'),
  });
  const filtered = Object.keys(target.filter).length > 0;
  const listRequests = new Set<RequestId>();

  let stop = async () => {
    await upstream.close();
    await downstream.close();
  };
  const lifecycle = installLifecycle({ logger, ...lifecycleFlags(opts), stop: () => stop() });

  const pipe = (message: JSONRPCMessage) => {
    const m = message as unknown as RpcMessage;
    if (filtered && isRequest(m)) {
      if (m.method === 'tools/list') listRequests.add(m.id);
      const name = String(m.params?.name ?? '');
      // A refusal the client's model reads: a tool result with isError (hub/policyRefusal.ts, loaded on the first).
      if (m.method === 'tools/call' && !isToolAllowed(target.filter, name)) {
        void import('../hub/policyRefusal.js').then(({ filteredToolResult }) =>
          downstream.send({
            jsonrpc: '2.0',
            id: m.id,
            result: filteredToolResult(name, target.id, name),
          } as JSONRPCMessage),
        );
        return;
      }
    }
    upstream.send(message).catch((err: Error) => {
      if (isRequest(m)) {
        void downstream.send({
          jsonrpc: '2.0',
          id: m.id,
          error: { code: ErrorCode.QueueFull, message: err.message },
        } as JSONRPCMessage);
      }
    });
  };
  // The era is chosen once, at the client's first message: a 2025 client keeps the pipe (and
  // pays nothing more per message); a 2026 one is served by a hub (modes/convertThroughHub.ts).
  downstream.onmessage = (message) => {
    const m = message as unknown as RpcMessage;
    if (!isRequest(m) || !isRev2026Request(m)) {
      downstream.onmessage = pipe;
      return pipe(message);
    }
    const closed = () => void lifecycle.shutdown('client closed the connection');
    stop = serve2026Client(opts, target, kind, logger, downstream, message, closed);
    void upstream.close();
  };
  upstream.onmessage = (message) => {
    const m = message as unknown as RpcMessage;
    if (filtered && isResponse(m) && 'result' in m && m.id !== null && listRequests.delete(m.id)) {
      const tools = (m.result.tools as { name: string }[] | undefined) ?? [];
      void downstream.send({
        ...m,
        result: { ...m.result, tools: tools.filter((t) => isToolAllowed(target.filter, t.name)) },
      } as unknown as JSONRPCMessage);
      return;
    }
    void downstream.send(message);
  };
  downstream.onclose = () => void lifecycle.shutdown('client closed the connection');
  await upstream.start();
  await downstream.start();
  return lifecycle.done;
}
