/**
 * The activity contract: one record per request a session sent through the runtime, as the
 * bridge's `/activity`, its stream, the IPC channel and the panel speak it; and the health
 * figures a server's status carries. Types, and the list of outcomes the filters accept.
 * Argument and result values appear only for a server whose entry says `"capture": true`,
 * masked and cut.
 */

/**
 * How a request ended: answered (`ok`), answered with a tool result that says it failed
 * (`tool-error`: `isError: true`), answered with a JSON-RPC error (`error`), cancelled by its
 * client, not answered within its timeout (`timeout`), or refused by a policy (`denied`).
 */
export const ACTIVITY_OUTCOMES = ['ok', 'tool-error', 'error', 'cancelled', 'timeout', 'denied'] as const;
export type ActivityOutcome = (typeof ACTIVITY_OUTCOMES)[number];

export interface ActivityRecord {
  /** Its number in this process, rising: the paging cursor. */
  seq: number;
  /** When the request arrived (ISO 8601). */
  at: string;
  /** The session's number in its process (as the status names sessions). */
  session: number;
  /** The client's own name (`clientInfo.name`), once it said it. */
  client?: string;
  /** The server the request went to (or whose route it came in on); absent when none was found. */
  server?: string;
  method: string;
  /**
   * The tool or prompt name as the client sent it (the tool a `call_tool` named), or the
   * resource URI with its credentials masked (userinfo gone, query values `***`).
   */
  name?: string;
  /** The meta-tool the client called the tool `name` through (`call_tool`); absent for a direct call. */
  via?: string;
  durationMs: number;
  /** Bytes of the request and of its answer as framed on the client's wire, when the transport knows. */
  bytesIn?: number;
  bytesOut?: number;
  outcome: ActivityOutcome;
  /** With `error`, `timeout` or `denied`: the JSON-RPC error code and message (secrets masked, cut). */
  error?: { code: number; message: string };
  /** Progress notifications the client got for it. */
  progress: number;
  /** A call of a tool with an MCP Apps view: its `ui://` resource, and the key of what the bridge kept for the view (`/apps/views/<key>`). */
  app?: ActivityApp;
  /** With `"capture": true` on the server: its arguments and its result as JSON text, masked and cut. */
  captured?: { params?: string; result?: string };
}

/** What an activity record says of a call's MCP Apps view. */
export interface ActivityApp {
  resourceUri: string;
  view?: string;
}

/** One page of `/activity`, newest first; `next` is the `before` cursor of the following page. */
export interface ActivityPage {
  records: ActivityRecord[];
  next?: number;
  /** Records held now, and dropped from the ring since the start. */
  held: number;
  dropped: number;
}

/** `/activity`'s filters; every one optional, all must hold. */
export interface ActivityQuery {
  server?: string;
  client?: string;
  outcome?: ActivityOutcome;
  /** A case-insensitive substring of the method, name, via, server, client or error message. */
  text?: string;
  /** Only records older than this `seq`. */
  before?: number;
  /** Page size, 1 to 500 (default 100). */
  limit?: number;
}

/** A server's calls over the health window (the last five minutes), in `ServerStatus.health`. */
export interface ServerHealth {
  /** The window's length. */
  windowMs: number;
  calls: number;
  /** Calls whose outcome was not `ok` nor `cancelled` (tool errors included). */
  errors: number;
  p50Ms?: number;
  p95Ms?: number;
  /** The last call's time (ISO 8601), whenever it was. */
  lastCallAt?: string;
}
