/**
 * What the runtime asks whoever can answer for the user (the app, over the bridge's IPC
 * channel: modes/bridgeApproval.ts), and the answers. A leaf of types and names.
 */

/** One tool call waiting for the user's approval. */
export interface ApprovalQuestion {
  /** Unique within the process: the answer names it. */
  id: string;
  server: string;
  /** The tool's name as its server gives it. */
  tool: string;
  /** The client that called (its `clientInfo.name`), as far as it said. */
  client?: string;
  /** Which session of this process called (its serial, as the status names it). */
  session: number;
  /** The call's arguments, for the user to see; never logged. */
  arguments: Record<string, unknown>;
  /** The rule that asked, e.g. `annotations (destructiveHint)`. */
  rule: string;
  /** How long the question waits before it is a deny. */
  timeoutMs: number;
}

/**
 * `once`: this call; `always`: this tool of this server from now on; `none`: nobody answers
 * here; `timeout`: nobody answered in time (a deny).
 */
export type ApprovalReply = 'once' | 'always' | 'deny' | 'none' | 'timeout';

/** Asks the user; resolves with their answer, `timeout` at the deadline, `none` when nobody can answer. */
export type AskUser = (q: ApprovalQuestion) => Promise<ApprovalReply>;
