/**
 * What the bridge's endpoints share, a leaf but for the header names it reads
 * (agentHeaders.ts): the route a session came in on, with what its opening request asked for,
 * and the handler (the hub's side) that serves the sessions.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  AGENT_ENTRY_HEADER,
  AGENT_NAME_HEADER,
  AGENT_NAME_RE,
  AGENT_SESSION_HEADER,
  AGENT_SESSION_KEY_RE,
  CALLER_KEY_HEADER,
  TOOL_EXPOSURE_HEADER,
} from './agentHeaders.js';
import { CALLER_KEY_RE } from '../hub/approval/callerMeta.js';

/** Which route a session came in on. */
export interface McpRoute {
  /** The server id of `/mcp/<id>` or `/sse/<id>`; undefined for the aggregated route. */
  serverId?: string;
  kind: 'streamable' | 'sse' | 'stream';
  /** `all`: the session lists every tool whatever the bridge's `toolExposure` (TOOL_EXPOSURE_HEADER). */
  exposure?: 'all';
  /** The ACP session's caller key its opening request carried (CALLER_KEY_HEADER). */
  callerKey?: string;
  /** The ACP session it belongs to, as its opening request said (agentHeaders.ts): for the economy view (agentSessions.ts). */
  agent?: AgentTag;
}

/** An ACP session's connection, as its headers tell it. */
export interface AgentTag {
  /** The session's key (AGENT_SESSION_HEADER). */
  key: string;
  /** The agent's name (AGENT_NAME_HEADER). */
  name?: string;
  /** Its entry's kind (AGENT_ENTRY_HEADER). */
  entry?: 'stdio' | 'http';
  /** The connection said its session lists every tool (TOOL_EXPOSURE_HEADER `all`), whatever its route. */
  allTools: boolean;
}

/** The route of a new session on `serverId` (undefined: aggregated), with what its opening request asked for. */
export function routeOf(serverId: string | undefined, kind: McpRoute['kind'], headers: IncomingHttpHeaders): McpRoute {
  const all = serverId === undefined && headers[TOOL_EXPOSURE_HEADER] === 'all';
  const key = headers[CALLER_KEY_HEADER];
  const agent = agentTag(headers);
  return {
    serverId,
    kind,
    ...(all ? { exposure: 'all' as const } : {}),
    ...(typeof key === 'string' && CALLER_KEY_RE.test(key) ? { callerKey: key } : {}),
    ...(agent ? { agent } : {}),
  };
}

/** The ACP session a request's headers name, if they carry a well-formed key. */
function agentTag(headers: IncomingHttpHeaders): AgentTag | undefined {
  const key = headers[AGENT_SESSION_HEADER];
  if (typeof key !== 'string' || !AGENT_SESSION_KEY_RE.test(key)) return undefined;
  const name = headers[AGENT_NAME_HEADER];
  const entry = headers[AGENT_ENTRY_HEADER];
  return {
    key,
    ...(typeof name === 'string' && AGENT_NAME_RE.test(name) ? { name } : {}),
    ...(entry === 'stdio' || entry === 'http' ? { entry } : {}),
    allTools: headers[TOOL_EXPOSURE_HEADER] === 'all',
  };
}

/** The router's side of the bridge: it serves MCP on the transports handed to it. */
export interface McpSessionHandler {
  /**
   * Called once per new downstream session with its SDK transport. The handler wires
   * `onmessage` and MUST start the transport before its promise settles (the SDK's
   * `Server.connect()` / `Protocol.connect()` does both). The HTTP layer keeps its own
   * `onclose` hook (chained around the handler's, which then fires at most once) so it
   * knows when a session ends, whichever side ends it. A thrown error refuses the
   * session with a 500. The transport's `close()` ends the session.
   */
  connect(transport: Transport, route: McpRoute): void | Promise<void>;
  /**
   * Whether a route exists and is ready: 'ok', 'unknown' (404 on every request of that
   * route), or `{ notReady: state }` (503 with that state for new sessions; requests
   * of existing sessions still go through).
   */
  routeState(serverId: string | undefined): 'ok' | 'unknown' | { notReady: string };
  /** The `inputSchema` of a tool as the route `serverId` lists it (the modern endpoint checks `Mcp-Param-*` with it). */
  toolInputSchema?(serverId: string | undefined, name: string): unknown;
}
