/**
 * The approval question the bridge asks the app over its IPC channel (src/proxy/modes/bridgeApproval.ts
 * sends it, src/main/runtime/approvalRequests.ts turns it into McpRuntime's `approval` event).
 */

/** One tool call waiting for the user's approval. */
export interface ApprovalQuestion {
  /** Unique within the bridge process: the answer names it. */
  id: string;
  server: string;
  /** The tool's name as its server gives it. */
  tool: string;
  /** The client that called (its `clientInfo.name`), as far as it said: the agent's proxy for an ACP agent. */
  client?: string;
  /** That client's `clientInfo.version`, as far as it said. */
  clientVersion?: string;
  /**
   * The caller key of the agent session the call came from (its stdio proxy carries it): what an
   * allow from that session's own permission prompt must match. Never shown, never logged.
   */
  callerKey?: string;
  /** Which session of the bridge called (its serial, as the status names it). */
  session: number;
  /** The call's arguments, for the user to see; never logged. */
  arguments: Record<string, unknown>;
  /** The rule that asked, e.g. `annotations (destructiveHint)`. */
  rule: string;
  /** How long the question waits before it is a deny. */
  timeoutMs: number;
}
