/** The approval policy's settings as types, a leaf (checked in approvalConfig.ts). */

/** What a rule answers a tool call. */
export type ApprovalAnswer = 'allow' | 'ask' | 'deny';

/** One level's `"approval"`: one answer for every tool, `"off"` (no policy), or `{"<tool glob>": answer}`. */
export type ApprovalRule = ApprovalAnswer | 'off' | Record<string, ApprovalAnswer>;

/**
 * How a tool no rule names is answered from its annotations: `destructive` asks only a tool
 * that says it writes (`destructiveHint: true`, or `readOnlyHint: false` without
 * `destructiveHint: false`); `spec` takes the MCP defaults literally (every tool that does not
 * say `readOnlyHint: true`, or both `destructiveHint: false` and `openWorldHint: false`, asks).
 */
export type ApprovalHints = 'destructive' | 'spec';

export interface ApprovalSettings {
  /** The top-level `"approval"`; unset: annotations decide. */
  top?: ApprovalRule;
  /** Each entry's own `"approval"`, by server id; it wins over the top level. */
  servers: Record<string, ApprovalRule>;
  hints: ApprovalHints;
  /** How long an `ask` waits for the user's answer before it is a deny. */
  askTimeoutMs: number;
}
