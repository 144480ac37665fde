/**
 * The request headers with which an ACP session's entries (built by the app, src/main/acp/acp.ts)
 * tell the bridge about that session: its key, which the bridge notes (agentArrivals.ts), its
 * caller key, that its `/mcp` session lists every tool (mcpRoute.ts), and, for the economy view
 * (agentSessions.ts), the agent's name and the kind of its entry. A leaf: the app's entries and
 * the bridge's routes name them once.
 */

/** An ACP session's key, on each of its connections to the bridge (the stdio proxy's stream links, an http entry). */
export const AGENT_SESSION_HEADER = 'x-qiming-agent-session';

/** What a session key looks like (the app's are 16 base64url characters); anything else is ignored. */
export const AGENT_SESSION_KEY_RE = /^[A-Za-z0-9_-]{8,64}$/;

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

/**
 * The agent's own name (`agentInfo.name` at `initialize`), made to fit a header by the app
 * (main/acp/acp.ts); the bridge keeps only a value {@link AGENT_NAME_RE} matches. Not a secret.
 */
export const AGENT_NAME_HEADER = 'x-qiming-agent-name';

/** How the session's entry reaches the bridge: `stdio` (the agent's proxy over stream links) or `http` (the agent's own). */
export const AGENT_ENTRY_HEADER = 'x-qiming-agent-entry';

/** Printable ASCII without `$` (a stdio entry's proxy expands `${VAR}` in headers), 1 to 64 characters. */
export const AGENT_NAME_RE = /^[\x20-\x23\x25-\x7e]{1,64}$/;
