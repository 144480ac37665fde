/**
 * What the approval policy answers one tool call, and by which rule (pure; the settings are
 * config/approvalConfig.ts, the enforcement approvalGate.ts). In order: a top-level `"off"`; the
 * server's own `"approval"`; the top level's; the tool's annotations. Within one `{glob: answer}`
 * object a key matches the tool's name as its server gives it or as the session calls it
 * (`<server>__<tool>`); a key equal to either name wins over globs, and among matching globs
 * the strictest answer wins (deny, then ask, then allow), whatever their order.
 */
import type { ApprovalAnswer, ApprovalRule, ApprovalSettings } from '../../config/approvalConfig.js';
import { globToRegExp, isGlob } from '../../config/toolFilter.js';

export interface ApprovalDecision {
  /** `off`: no policy applies (plain pass-through). */
  answer: ApprovalAnswer | 'off';
  /** Which rule decided, for the log and the error: `approval["*_delete*"]`, `annotations (destructiveHint)`... */
  rule: string;
}

const STRICTNESS: Record<ApprovalAnswer, number> = { allow: 0, ask: 1, deny: 2 };

/** The answer of one rule for a tool named `names` (server's name first), with the key that matched. */
function ruleAnswer(
  rule: ApprovalRule,
  names: readonly string[],
): { answer: ApprovalAnswer | 'off'; key?: string } | undefined {
  if (typeof rule === 'string') return { answer: rule };
  for (const n of names) if (Object.hasOwn(rule, n) && !isGlob(n)) return { answer: rule[n]!, key: n };
  let best: { answer: ApprovalAnswer; key: string } | undefined;
  for (const [key, answer] of Object.entries(rule)) {
    if (!names.some((n) => globToRegExp(key).test(n))) continue;
    if (!best || STRICTNESS[answer] > STRICTNESS[best.answer]) best = { answer, key };
  }
  return best;
}

/** The answer from a tool's annotations (`hints`: approvalConfig.ts). */
export function hintAnswer(
  tool: Record<string, unknown> | undefined,
  hints: ApprovalSettings['hints'],
): ApprovalDecision {
  const a = (tool?.annotations ?? {}) as Record<string, unknown>;
  if (a.readOnlyHint === true) return { answer: 'allow', rule: 'annotations (readOnlyHint)' };
  if (hints === 'spec') {
    // The MCP defaults: destructiveHint true, openWorldHint true, for a tool that is not read-only.
    if (a.destructiveHint !== false) return { answer: 'ask', rule: 'annotations (destructiveHint, MCP default true)' };
    if (a.openWorldHint !== false) return { answer: 'ask', rule: 'annotations (openWorldHint, MCP default true)' };
    return { answer: 'allow', rule: 'annotations (neither destructive nor open-world)' };
  }
  if (a.destructiveHint === true) return { answer: 'ask', rule: 'annotations (destructiveHint)' };
  if (a.readOnlyHint === false && a.destructiveHint !== false)
    return { answer: 'ask', rule: 'annotations (readOnlyHint false, destructiveHint default true)' };
  return { answer: 'allow', rule: 'annotations (none says it writes)' };
}

/**
 * The decision for tool `name` of server `serverId`, called `exposed` by the session, whose
 * definition (from its server's list) is `tool`. No settings: annotations with the defaults.
 */
export function decideApproval(
  settings: ApprovalSettings | undefined,
  serverId: string,
  name: string,
  exposed: string,
  tool: Record<string, unknown> | undefined,
): ApprovalDecision {
  const names = name === exposed ? [name] : [name, exposed];
  if (settings?.top === 'off') return { answer: 'off', rule: 'approval "off"' };
  const own = settings?.servers[serverId];
  const byServer = own === undefined ? undefined : ruleAnswer(own, names);
  if (byServer) {
    const where = `mcpServers.${serverId}.approval`;
    return {
      answer: byServer.answer,
      rule: byServer.key === undefined ? where : `${where}[${JSON.stringify(byServer.key)}]`,
    };
  }
  const byTop = settings?.top === undefined ? undefined : ruleAnswer(settings.top, names);
  if (byTop)
    return {
      answer: byTop.answer,
      rule: byTop.key === undefined ? 'approval' : `approval[${JSON.stringify(byTop.key)}]`,
    };
  return hintAnswer(tool, settings?.hints ?? 'destructive');
}
