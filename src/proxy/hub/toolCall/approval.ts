/**
 * Tool-call stage: the approval policy (approval/approvalGate.ts, loaded on the first call it
 * applies to). A `bridge` upstream's bridge applies the policy itself, so it is taken once per
 * call and path; `"approval": "off"` skips it.
 */
import { isBridge, ownerOf, type ToolCallStage } from './toolCall.js';

export const approval: ToolCallStage = (next) => async (call) => {
  const u = ownerOf(call);
  if (call.hub.config.approval?.top === 'off' || isBridge(u)) return next(call);
  const { approveToolCall } = await import('../approval/approvalGate.js');
  if (!(await approveToolCall(call.hub, call.s, call.req, u, call.name, call.exposed))) return;
  return next(call);
};
