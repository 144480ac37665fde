/**
 * Tool-call stage: the owner's tool filters (`allowTools`/`denyTools`, `tools`, the command
 * line's). A tool they hide is refused with a tool result naming the filter (policyRefusal.ts).
 */
import { ownerOf, type ToolCallStage } from './toolCall.js';

export const allowedByFilter: ToolCallStage = (next) => async (call) => {
  const u = ownerOf(call);
  if (call.hub.toolAllowed(u, call.name)) return next(call);
  const { refuseFilteredTool } = await import('../policyRefusal.js');
  return refuseFilteredTool(call.s, call.req, call.exposed, u.id, call.name);
};
