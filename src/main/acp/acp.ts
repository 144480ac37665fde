/**
 * The `mcpServers` of an ACP `session/new`, per the ACP v1 schema.
 *
 * Default: ONE stdio entry that runs the proxy CLI in aggregation mode. Its upstreams are the
 * bridge's per-server URLs (`bridge` type: streamable HTTP behind the reconnecting transport),
 * so the agent's first `tools/list` is answered from the bridge's cache, plus the user's
 * `"persistent": false` entries, which that proxy spawns for this session only.
 *
 * - The stdio entry has no `type` field, an absolute `command`, and `env` as `[{name, value}]`.
 * - The bridge token travels in `env` (`MCP_BRIDGE_TOKEN`) and the config says
 *   `Bearer ${MCP_BRIDGE_TOKEN}`, which the proxy expands; argv is readable by every local
 *   user, the environment is not. So does the session's caller key (`QIMING_CALLER_KEY`), when
 *   the app gives one.
 * - Every variable the proxy needs is in the entry's `env` (some agents pass a filtered
 *   environment): `MCP_PROXY_LOG_FILE` (main cannot see a grandchild's stderr, so it tails
 *   that file), `ELECTRON_RUN_AS_NODE=1` when the command is the Electron binary, and
 *   `QIMING_LOGIN_PATH`, the login-shell PATH folders the app read at start.
 * - Secret values of `persistent: false` entries (env, headers, authToken) are moved into
 *   the entry's `env` and referenced as `${QIMING_SECRET_<n>}` (see secretsToEnv.ts).
 * - `http` entries that point straight at the bridge (no grandchild at all) only when the
 *   agent advertised `mcpCapabilities.http` AND the app asked for them.
 */
import { isAbsolute } from 'node:path';
import type { AgentCapabilities, EnvVariable, McpServer, McpServerStdio } from '@agentclientprotocol/sdk';
import { CALLER_KEY_ENV, LOG_FILE_ENV, LOGIN_PATH_ENV, TOKEN_ENV } from '../../proxy/index.js';
import { nodeCommand, resolveProxyCliPath, type NodeCommand } from '../runtime/cliPath.js';
import { secretsToEnv } from '../config/secretsToEnv.js';
import type { AggregateExposure } from '../config/userConfig.js';

export interface AcpMcpServersOptions {
  /** The ready bridge (from `runtime.whenReady()`). */
  bridge: { url: string; token: string };
  /** Bridge servers the session gets (from `runtime.mcpServerPlan()`). */
  bridgeIds: readonly string[];
  /** Raw `"persistent": false` entries, run by the session's own proxy. */
  sessionEntries?: Readonly<Record<string, unknown>>;
  /**
   * The user's tool exposure settings (`toolExposure`, `toolBudgetTokens`, each server's `expose`
   * and `description`), for the proxy's aggregation of the bridge's servers (from `runtime.mcpServerPlan()`).
   */
  exposure?: AggregateExposure;
  /** Absolute path of the bundled proxy CLI. Default: this package's (`resolveProxyCliPath()`). */
  cliPath?: string;
  /** How to run it; its `command` must be absolute. Default: `nodeCommand()` (this process's executable). */
  node?: NodeCommand;
  /**
   * `MCP_PROXY_LOG_FILE` for the proxies (`proxyLogFilePath(logsDir)`, the file a `LogTail`
   * follows). Default: none; the proxies then log to their stderr, which the agent gets.
   */
  logFile?: string;
  /** `aggregate` (default): one stdio entry; `perServer`: one entry per server. */
  layout?: 'aggregate' | 'perServer';
  /** Use `http` entries for bridge servers when the agent supports them. Default false. */
  preferHttp?: boolean;
  /** Name of the aggregate entry. Default `'mcp'`. */
  name?: string;
  /** Extra proxy arguments (e.g. `['--log-level', 'debug']`). */
  proxyArgs?: readonly string[];
  /**
   * Extra variables for the proxy's environment, e.g. those the user's `persistent: false`
   * entries reference as `${VAR}` (agents may not pass the app's environment on).
   */
  env?: Readonly<Record<string, string>>;
  /**
   * The session's caller key (`QIMING_CALLER_KEY` in the env of each entry that reaches the
   * bridge): its proxy names it in its calls, and an allow from the session's own permission
   * prompt answers only those (McpRuntime.grantOnce). AcpEngine makes one per session.
   */
  callerKey?: string;
}

/** Name of the aggregate stdio entry when the app gives none. */
export const DEFAULT_ENTRY_NAME = 'mcp';

/**
 * A `bridge` upstream for the proxy's config; the token is a `${VAR}` the proxy expands.
 * `shown`: how the aggregation lists its tools (the user entry's `expose`, `description`).
 */
export function bridgeUpstream(
  bridgeUrl: string,
  id: string,
  shown: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    type: 'bridge',
    url: `${bridgeUrl.replace(/\/+$/, '')}/mcp/${encodeURIComponent(id)}`,
    headers: { Authorization: `Bearer \${${TOKEN_ENV}}` },
    ...shown,
  };
}

/** Builds the `session/new` `mcpServers` (see the file comment). */
export function acpMcpServers(
  agentCapabilities: AgentCapabilities | null | undefined,
  given: AcpMcpServersOptions,
): McpServer[] {
  const options: Resolved = {
    ...given,
    node: given.node ?? nodeCommand(),
    cliPath: given.cliPath ?? resolveProxyCliPath(),
  };
  if (!isAbsolute(options.node.command))
    throw new Error(`ACP stdio entries need an absolute command, got "${options.node.command}"`);
  if (!isAbsolute(options.cliPath)) throw new Error(`the proxy CLI path must be absolute, got "${options.cliPath}"`);
  const sessionEntries = options.sessionEntries ?? {};
  const bridgeIds = options.bridgeIds.filter((id) => !(id in sessionEntries));
  const useHttp = options.preferHttp === true && agentCapabilities?.mcpCapabilities?.http === true;
  const shownOf = (id: string) => options.exposure?.servers[id] ?? {};
  const out: McpServer[] = [];

  if (useHttp) {
    for (const id of bridgeIds) {
      out.push({
        type: 'http',
        name: id,
        url: `${options.bridge.url.replace(/\/+$/, '')}/mcp/${encodeURIComponent(id)}`,
        headers: [{ name: 'Authorization', value: `Bearer ${options.bridge.token}` }],
      });
    }
  }
  const viaProxy = useHttp ? [] : bridgeIds;
  if (options.layout === 'perServer') {
    for (const id of viaProxy)
      out.push(stdioEntry(id, { [id]: bridgeUpstream(options.bridge.url, id, shownOf(id)) }, true, options));
    for (const [id, entry] of Object.entries(sessionEntries)) out.push(stdioEntry(id, { [id]: entry }, false, options));
    return out;
  }
  const servers: Record<string, unknown> = {};
  for (const id of viaProxy) servers[id] = bridgeUpstream(options.bridge.url, id, shownOf(id));
  Object.assign(servers, sessionEntries);
  if (Object.keys(servers).length > 0)
    out.push(stdioEntry(options.name ?? DEFAULT_ENTRY_NAME, servers, viaProxy.length > 0, options));
  return out;
}

type Resolved = AcpMcpServersOptions & Required<Pick<AcpMcpServersOptions, 'cliPath' | 'node'>>;

function stdioEntry(name: string, servers: Record<string, unknown>, needsToken: boolean, o: Resolved): McpServerStdio {
  const env: EnvVariable[] = [];
  if (needsToken) env.push({ name: TOKEN_ENV, value: o.bridge.token });
  if (needsToken && o.callerKey !== undefined) env.push({ name: CALLER_KEY_ENV, value: o.callerKey });
  if (o.logFile !== undefined) env.push({ name: LOG_FILE_ENV, value: o.logFile });
  // Faster proxy start under Node >= 22.1 (see main.ts); agents may not pass it on themselves.
  if (process.env.NODE_COMPILE_CACHE) env.push({ name: 'NODE_COMPILE_CACHE', value: process.env.NODE_COMPILE_CACHE });
  // The login-shell PATH the app read at start (loginEnv.ts): the proxy adds it for its
  // servers and never runs the shell itself.
  const loginPath = process.env[LOGIN_PATH_ENV];
  if (loginPath !== undefined) env.push({ name: LOGIN_PATH_ENV, value: loginPath });
  // The app's OpenTelemetry variables: the agent's proxy traces into the same collector as the bridge.
  for (const [k, v] of Object.entries(process.env)) if (k.startsWith('OTEL_') && v) env.push({ name: k, value: v });
  // argv is public on the machine: secrets of per-session entries travel in env instead.
  const hidden = secretsToEnv(servers);
  for (const [k, v] of Object.entries({ ...o.env, ...o.node.env, ...hidden.env })) env.push({ name: k, value: v });
  const args = [o.cliPath, '--config', JSON.stringify({ ...o.exposure?.options, mcpServers: hidden.servers })];
  // One server per entry: its tools keep their own names (the agent already namespaces by entry).
  if (o.layout === 'perServer') args.push('--tool-naming', 'original');
  args.push(...(o.proxyArgs ?? []));
  return { name, command: o.node.command, args, env };
}
