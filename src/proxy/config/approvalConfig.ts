/**
 * The approval policy as the user wrote it: the top-level `"approval"`, `"approvalHints"` and
 * `"approvalTimeoutMs"`, and each entry's own `"approval"`, checked and normalised. What a call
 * is answered by them is hub/approval/approvalRules.ts (docs/decisions/0036-approval-policy.md).
 */
import { isPlainObject, oneOf } from './configEntry.js';

import type { ApprovalAnswer, ApprovalHints, ApprovalRule, ApprovalSettings } from './approvalTypes.js';

export type { ApprovalAnswer, ApprovalHints, ApprovalRule, ApprovalSettings } from './approvalTypes.js';

export const APPROVAL_ANSWERS: readonly ApprovalAnswer[] = ['allow', 'ask', 'deny'];
export const APPROVAL_HINTS: readonly ApprovalHints[] = ['destructive', 'spec'];
export const DEFAULT_APPROVAL_TIMEOUT_MS = 60_000;

/** `raw` as a rule, or undefined with its problems in `issues` (each prefixed with `where`). */
export function approvalRule(raw: unknown, where: string, issues: string[]): ApprovalRule | undefined {
  if (raw === 'off' || APPROVAL_ANSWERS.includes(raw as ApprovalAnswer)) return raw as ApprovalRule;
  if (!isPlainObject(raw)) {
    issues.push(`${where} ${oneOf([...APPROVAL_ANSWERS, 'off'])}, or {"<tool glob>": answer}`);
    return undefined;
  }
  const before = issues.length;
  for (const [glob, answer] of Object.entries(raw)) {
    if (glob === '') issues.push(`${where} must not have an empty tool pattern`);
    else if (!APPROVAL_ANSWERS.includes(answer as ApprovalAnswer))
      issues.push(`${where}[${JSON.stringify(glob)}] ${oneOf(APPROVAL_ANSWERS)}`);
  }
  return issues.length === before ? (raw as Record<string, ApprovalAnswer>) : undefined;
}

/**
 * The settings of a config whose checked top level is `top` (`approvalHints` and
 * `approvalTimeoutMs` checked by its schema in config.ts), given each valid entry's rule in
 * `entries`; the top-level rule's problems go to `issues`. Undefined when the config says
 * nothing of approval (the defaults: annotations decide, 60 s to answer).
 */
export function approvalSettings(
  top: { approval?: unknown; approvalHints?: ApprovalHints; approvalTimeoutMs?: number },
  entries: Record<string, ApprovalRule>,
  issues: string[],
): ApprovalSettings | undefined {
  const rule = top.approval === undefined ? undefined : approvalRule(top.approval, 'approval', issues);
  if (top.approval === undefined && !top.approvalHints && !top.approvalTimeoutMs && !Object.keys(entries).length)
    return undefined;
  return {
    ...(rule === undefined ? {} : { top: rule }),
    servers: entries,
    hints: top.approvalHints ?? 'destructive',
    askTimeoutMs: top.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
  };
}
