/**
 * The request headers with which an ACP session's entries (built by the app, src/main/acp/acp.ts)
 * tell the bridge about that session: its key, which the bridge notes (agentArrivals.ts), its
 * caller key and that its `/mcp` session lists every tool (mcpRoute.ts). A leaf: the app's entries and the
 * bridge's routes name them once.
 */

/** An ACP session's key, on each of its connections to the bridge (the stdio proxy's stream links, an http entry). */
export const AGENT_SESSION_HEADER = 'x-qiming-agent-session';

/**
 * The ACP session's caller key on its http entry (a stdio entry's proxy names it in each call
 * instead, hub/approval/callerMeta.ts): an allow from that session's own permission prompt
 * answers only calls of a bridge session that carries it.
 */
export const CALLER_KEY_HEADER = 'x-qiming-caller-key';

/**
 * `all`: a session of the aggregated route lists every tool whatever the bridge's
 * `toolExposure`; the app sets it on the http entry of an agent that keeps long tool lists
 * behind a search of its own.
 */
export const TOOL_EXPOSURE_HEADER = 'x-qiming-tool-exposure';
