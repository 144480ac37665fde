/**
 * The approval policy as the user wrote it: the top-level `"approval"`, `"approvalHints"` and
 * `"approvalTimeoutMs"`, and each entry's own `"approval"`, checked and normalised. What a call
 * is answered by them is hub/approval/approvalRules.ts (docs/decisions/0036-approval-policy.md).
 */

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

export const APPROVAL_ANSWERS: readonly ApprovalAnswer[] = ['allow', 'ask', 'deny'];
export const DEFAULT_APPROVAL_TIMEOUT_MS = 60_000;
const MAX_APPROVAL_TIMEOUT_MS = 3_600_000;
const HINTS: readonly ApprovalHints[] = ['destructive', 'spec'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const quoted = (xs: readonly string[]) => xs.map((x) => `"${x}"`).join(', ');

/** `raw` as a rule, or undefined with its problems in `issues` (each prefixed with `where`). */
export function approvalRule(raw: unknown, where: string, issues: string[]): ApprovalRule | undefined {
  if (raw === 'off' || (typeof raw === 'string' && (APPROVAL_ANSWERS as string[]).includes(raw)))
    return raw as ApprovalRule;
  if (!isObject(raw)) {
    issues.push(
      `${where} must be one of ${quoted([...APPROVAL_ANSWERS, 'off'])}, or an object like {"<tool glob>": "allow" | "ask" | "deny"}`,
    );
    return undefined;
  }
  const out: Record<string, ApprovalAnswer> = {};
  const before = issues.length;
  for (const [glob, answer] of Object.entries(raw)) {
    if (glob === '') issues.push(`${where} must not have an empty tool pattern`);
    else if (typeof answer !== 'string' || !(APPROVAL_ANSWERS as string[]).includes(answer))
      issues.push(`${where}[${JSON.stringify(glob)}] must be one of ${quoted(APPROVAL_ANSWERS)}`);
    else out[glob] = answer as ApprovalAnswer;
  }
  return issues.length === before ? out : undefined;
}

/**
 * The settings of a config whose top level is `raw`, given each valid entry's `"approval"` in
 * `entries`; top-level problems go to `top`. Undefined when the config says nothing of approval
 * (the defaults: annotations decide, 60 s to answer).
 */
export function approvalSettings(
  raw: Record<string, unknown>,
  entries: Record<string, ApprovalRule>,
  top: string[],
): ApprovalSettings | undefined {
  const said = raw.approval !== undefined || raw.approvalHints !== undefined || raw.approvalTimeoutMs !== undefined;
  if (!said && Object.keys(entries).length === 0) return undefined;
  const settings: ApprovalSettings = {
    servers: entries,
    hints: 'destructive',
    askTimeoutMs: DEFAULT_APPROVAL_TIMEOUT_MS,
  };
  if (raw.approval !== undefined) {
    const rule = approvalRule(raw.approval, 'approval', top);
    if (rule !== undefined) settings.top = rule;
  }
  if (raw.approvalHints !== undefined) {
    if (typeof raw.approvalHints === 'string' && (HINTS as string[]).includes(raw.approvalHints))
      settings.hints = raw.approvalHints as ApprovalHints;
    else top.push(`approvalHints must be one of ${quoted(HINTS)}`);
  }
  const t = raw.approvalTimeoutMs;
  if (t !== undefined) {
    if (typeof t === 'number' && Number.isInteger(t) && t >= 1 && t <= MAX_APPROVAL_TIMEOUT_MS)
      settings.askTimeoutMs = t;
    else top.push(`approvalTimeoutMs must be an integer from 1 to ${MAX_APPROVAL_TIMEOUT_MS} (milliseconds)`);
  }
  return settings;
}
