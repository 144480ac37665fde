/**
 * Tool-call stage: MCP Apps' visibility (apps/toolAudience.ts). An agent's call to a tool meant
 * for its app view only, or a view's call to a tool not meant for views, is refused with a tool
 * result naming the policy `visibility`.
 */
import { refuseHidden } from '../../apps/toolAudience.js';
import { ownerOf, type ToolCallStage } from './toolCall.js';

export const appVisibility: ToolCallStage = (next) => async (call) => {
  if (await refuseHidden(call.s, call.req, ownerOf(call), call.name, call.exposed)) return;
  return next(call);
};
