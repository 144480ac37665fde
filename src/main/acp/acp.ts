/**
 * The `mcpServers` of an ACP `session/new`, per the ACP v1 schema, chosen for the agent that
 * answered `initialize` (agentProfiles.ts; why: docs/decisions/0046-entry-per-agent.md).
 *
 * - **stdio** (every agent that takes it): ONE entry that runs the proxy CLI in aggregation
 *   mode. Its upstreams are the bridge's per-server URLs (`bridge` type: the stream link behind
 *   the reconnecting transport), so the agent's first `tools/list` is answered from the bridge's
 *   cache, plus the user's `"persistent": false` entries, which that proxy spawns for this
 *   session only.
 * - **http** (an agent that drops stdio entries, Copilot; or the app's choice): ONE `http`
 *   entry to the bridge's aggregated route `/mcp`, so tool names, search mode and approval are
 *   those of the stdio entry. Per server (`/mcp/<id>`) only under `layout: 'perServer'` or for
 *   a selection of the bridge's servers (the aggregated route serves all of them). The
 *   `persistent: false` entries need a proxy of their own: a stdio entry beside it, named
 *   `<name>-local`, and none for an agent that drops stdio entries.
 * - A session key (`sessionKey`) goes to the bridge on every connection of the session (the
 *   `X-Qiming-Agent-Session` header): how `AcpEngine.newSession` knows the agent connected.
 *   With it go the agent's name, the entry's kind and, where the agent searches by itself,
 *   `X-Qiming-Tool-Exposure: all` (agentHeaders.ts): the bridge's economy view lists each
 *   session with the list that applies to it (bridge/agentSessions.ts). None is a secret.
 * - Under `"toolExposure": "auto"`, an agent that keeps MCP tools behind a search of its own
 *   gets every tool (the proxy's `toolExposure: "all"`, or `X-Qiming-Tool-Exposure: all`).
 * - The stdio entry has no `type` field, an absolute `command`, and `env` as `[{name, value}]`.
 * - The bridge token travels in `env` (`MCP_BRIDGE_TOKEN`) and the config says
 *   `Bearer ${MCP_BRIDGE_TOKEN}`, which the proxy expands; argv is readable by every local
 *   user, the environment is not. So does the session's caller key (`QIMING_CALLER_KEY`), when
 *   the app gives one. An http entry carries the token in its `Authorization` header and the
 *   caller key in `X-Qiming-Caller-Key`.
 * - Every variable the proxy needs is in the entry's `env` (some agents pass a filtered
 *   environment): `MCP_PROXY_LOG_FILE` (main cannot see a grandchild's stderr, so it tails
 *   that file), `ELECTRON_RUN_AS_NODE=1` when the command is the Electron binary, and
 *   `QIMING_LOGIN_PATH`, the login-shell PATH folders the app read at start.
 * - Secret values of `persistent: false` entries (env, headers, authToken) are moved into
 *   the entry's `env` and referenced as `${QIMING_SECRET_<n>}` (see secretsToEnv.ts).
 */
import { isAbsolute } from 'node:path';
import type {
  AgentCapabilities,
  EnvVariable,
  HttpHeader,
  Implementation,
  McpServer,
  McpServerStdio,
} from '@agentclientprotocol/sdk';
import {
  AGENT_ENTRY_HEADER,
  AGENT_NAME_HEADER,
  AGENT_SESSION_HEADER,
  CALLER_KEY_ENV,
  CALLER_KEY_HEADER,
  LOG_FILE_ENV,
  LOGIN_PATH_ENV,
  TOKEN_ENV,
  TOOL_EXPOSURE_HEADER,
} from '../../proxy/index.js';
import { nodeCommand, resolveProxyCliPath, type NodeCommand } from '../runtime/cliPath.js';
import { secretsToEnv } from '../config/secretsToEnv.js';
import type { AggregateExposure } from '../config/userConfig.js';
import { agentProfile, type AgentProfile } from './agentProfiles.js';

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
  /** `aggregate` (default): one entry for every server; `perServer`: one entry per server. */
  layout?: 'aggregate' | 'perServer';
  /**
   * How the agent reaches the bridge: `auto` (default) chooses by the agent (stdio, or http for
   * an agent that drops stdio entries); `stdio` and `http` force one (`http` only where the
   * agent advertised `mcpCapabilities.http`, else stdio).
   */
  transport?: EntryTransport;
  /** `transport: 'http'` (kept for apps written before `transport`); `transport` wins. */
  preferHttp?: boolean;
  /** What the agent said of itself at `initialize` (`agentInfo`), for `auto`. */
  agentInfo?: Implementation | null;
  /**
   * Whether `bridgeIds` is a selection out of the bridge's servers (the app's per-agent choice):
   * an http entry then goes per server, since the aggregated route serves all of them.
   */
  selected?: boolean;
  /** The session's key, sent to the bridge on each of its connections (`X-Qiming-Agent-Session`). */
  sessionKey?: string;
  /** Name of the aggregate entry. Default {@link DEFAULT_ENTRY_NAME}. */
  name?: string;
  /** Extra proxy arguments (e.g. `['--log-level', 'debug']`). */
  proxyArgs?: readonly string[];
  /**
   * Extra variables for the proxy's environment, e.g. those the user's `persistent: false`
   * entries reference as `${VAR}` (agents may not pass the app's environment on).
   */
  env?: Readonly<Record<string, string>>;
  /**
   * The session's caller key (`QIMING_CALLER_KEY` in the env of each stdio entry that reaches
   * the bridge, `X-Qiming-Caller-Key` in each http entry's headers): its calls carry it, and an allow from the session's own permission
   * prompt answers only those (McpRuntime.grantOnce). AcpEngine makes one per session.
   */
  callerKey?: string;
}

/** How an agent reaches the bridge (the `transport` option). */
export type EntryTransport = 'auto' | 'stdio' | 'http';

/**
 * Name of the aggregate entry when the app gives none: one a user's own agent config is unlikely
 * to hold (an agent may skip a requested server whose name its own config already uses).
 */
export const DEFAULT_ENTRY_NAME = 'qiming';

/** What {@link acpMcpServers} chose for an agent, for the engine's log and wait. */
export interface EntryPlan {
  transport: 'stdio' | 'http';
  profile: AgentProfile;
  /** Whether the session lists every tool whatever the user's `toolExposure` (the agent searches itself). */
  allTools: boolean;
  /** `persistent: false` servers left out: the agent drops stdio entries, and only a proxy of its own runs them. */
  droppedSessionEntries: string[];
}

/** The transport and exposure {@link acpMcpServers} chooses for these options. */
export function entryPlan(
  agentCapabilities: AgentCapabilities | null | undefined,
  options: Pick<AcpMcpServersOptions, 'transport' | 'preferHttp' | 'agentInfo' | 'exposure' | 'sessionEntries'>,
): EntryPlan {
  const profile = agentProfile(options.agentInfo, agentCapabilities);
  const asked = options.transport ?? (options.preferHttp === true ? 'http' : 'auto');
  const httpOk = agentCapabilities?.mcpCapabilities?.http === true;
  const wantsHttp = asked === 'http' || (asked === 'auto' && profile.refusesStdio);
  const transport = wantsHttp && httpOk ? 'http' : 'stdio';
  const exposure = options.exposure?.options.toolExposure ?? 'auto';
  const dropped = transport === 'http' && profile.refusesStdio ? Object.keys(options.sessionEntries ?? {}) : [];
  return { transport, profile, allTools: exposure === 'auto' && profile.searchesTools, droppedSessionEntries: dropped };
}

/**
 * The entries {@link acpMcpServers} gives one server each, for these options: their name is the
 * server's id and they list its tools under their own names (the permission pass-through reads
 * them so). Every entry under `layout: 'perServer'`; the http entries for a selection.
 */
export function perServerEntries(
  plan: Pick<EntryPlan, 'transport'>,
  options: Pick<AcpMcpServersOptions, 'layout' | 'selected' | 'bridgeIds' | 'sessionEntries'>,
): string[] {
  const local = options.sessionEntries ?? {};
  const bridged = options.bridgeIds.filter((id) => !(id in local));
  if (options.layout === 'perServer') return [...bridged, ...Object.keys(local)];
  return plan.transport === 'http' && options.selected === true ? bridged : [];
}

/**
 * A `bridge` upstream for the proxy's config; the token is a `${VAR}` the proxy expands.
 * `shown`: how the aggregation lists its tools (the user entry's `expose`, `description`);
 * `sessionKey`: the session's key for the bridge (`X-Qiming-Agent-Session`); `tags`: more
 * headers about the session, none secret ({@link agentTags}).
 */
export function bridgeUpstream(
  bridgeUrl: string,
  id: string,
  shown: Record<string, unknown> = {},
  sessionKey?: string,
  tags: Readonly<Record<string, string>> = {},
): Record<string, unknown> {
  return {
    type: 'bridge',
    url: `${bridgeUrl.replace(/\/+$/, '')}/mcp/${encodeURIComponent(id)}`,
    headers: {
      Authorization: `Bearer \${${TOKEN_ENV}}`,
      ...(sessionKey === undefined ? {} : { [AGENT_SESSION_HEADER]: sessionKey, ...tags }),
    },
    ...shown,
  };
}

/** An agent's name as a header value the bridge keeps (AGENT_NAME_RE): other characters become `_`, at most 64. */
function agentNameValue(name: string): string | undefined {
  const v = name
    .trim()
    .replace(/[^\x20-\x23\x25-\x7e]/g, '_')
    .slice(0, 64)
    .trim();
  return v.length > 0 ? v : undefined;
}

/**
 * The headers that tell the bridge what the app chose for a session (its economy view): the
 * agent's name, the entry's kind, and every tool listed where the agent searches by itself.
 */
export function agentTags(plan: EntryPlan, agentInfo: Implementation | null | undefined): Record<string, string> {
  const name = typeof agentInfo?.name === 'string' ? agentNameValue(agentInfo.name) : undefined;
  return {
    ...(name === undefined ? {} : { [AGENT_NAME_HEADER]: name }),
    [AGENT_ENTRY_HEADER]: plan.transport,
    ...(plan.allTools ? { [TOOL_EXPOSURE_HEADER]: 'all' } : {}),
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
  const plan = entryPlan(agentCapabilities, options);
  const sessionEntries = options.sessionEntries ?? {};
  const bridgeIds = options.bridgeIds.filter((id) => !(id in sessionEntries));
  const shownOf = (id: string) => options.exposure?.servers[id] ?? {};
  const name = options.name ?? DEFAULT_ENTRY_NAME;
  const key = options.sessionKey;
  const tags = agentTags(plan, options.agentInfo);
  const out: McpServer[] = [];

  if (plan.transport === 'http') {
    const base = options.bridge.url.replace(/\/+$/, '');
    const headers: HttpHeader[] = [{ name: 'Authorization', value: `Bearer ${options.bridge.token}` }];
    if (key !== undefined) headers.push({ name: AGENT_SESSION_HEADER, value: key });
    if (options.callerKey !== undefined) headers.push({ name: CALLER_KEY_HEADER, value: options.callerKey });
    if (options.layout === 'perServer' || options.selected === true) {
      // One server per entry: each lists its own tools, so no exposure is asked for.
      const { [TOOL_EXPOSURE_HEADER]: _all, ...perServer } = tags;
      if (key !== undefined) headers.push(...asHeaders(perServer));
      for (const id of bridgeIds)
        out.push({ type: 'http', name: id, url: `${base}/mcp/${encodeURIComponent(id)}`, headers });
    } else if (bridgeIds.length > 0) {
      if (key !== undefined) headers.push(...asHeaders(tags));
      else if (plan.allTools) headers.push({ name: TOOL_EXPOSURE_HEADER, value: 'all' });
      out.push({ type: 'http', name, url: `${base}/mcp`, headers });
    }
    if (plan.profile.refusesStdio) return out;
    const local = Object.entries(sessionEntries);
    if (options.layout === 'perServer')
      for (const [id, e] of local) out.push(stdioEntry(id, { [id]: e }, false, plan, options));
    else if (local.length > 0) out.push(stdioEntry(`${name}-local`, sessionEntries, false, plan, options));
    return out;
  }
  if (options.layout === 'perServer') {
    for (const id of bridgeIds)
      out.push(
        stdioEntry(id, { [id]: bridgeUpstream(options.bridge.url, id, shownOf(id), key, tags) }, true, plan, options),
      );
    for (const [id, entry] of Object.entries(sessionEntries))
      out.push(stdioEntry(id, { [id]: entry }, false, plan, options));
    return out;
  }
  const servers: Record<string, unknown> = {};
  for (const id of bridgeIds) servers[id] = bridgeUpstream(options.bridge.url, id, shownOf(id), key, tags);
  Object.assign(servers, sessionEntries);
  if (Object.keys(servers).length > 0) out.push(stdioEntry(name, servers, bridgeIds.length > 0, plan, options));
  return out;
}

const asHeaders = (h: Record<string, string>): HttpHeader[] =>
  Object.entries(h).map(([name, value]) => ({ name, value }));

type Resolved = AcpMcpServersOptions & Required<Pick<AcpMcpServersOptions, 'cliPath' | 'node'>>;

function stdioEntry(
  name: string,
  servers: Record<string, unknown>,
  needsToken: boolean,
  plan: EntryPlan,
  o: Resolved,
): McpServerStdio {
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
  // An agent that searches by itself gets every tool under `auto` (one search layer, not two).
  const options = { ...o.exposure?.options, ...(plan.allTools ? { toolExposure: 'all' } : {}) };
  const args = [o.cliPath, '--config', JSON.stringify({ ...options, mcpServers: hidden.servers })];
  // One server per entry: its tools keep their own names (the agent already namespaces by entry).
  if (o.layout === 'perServer') args.push('--tool-naming', 'original');
  args.push(...(o.proxyArgs ?? []));
  return { name, command: o.node.command, args, env };
}
