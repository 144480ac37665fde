/**
 * Tool-call stage: the tap on a call of a tool with an app view (apps/, the bridge's with MCP
 * Apps on): what the view needs is kept and the app told, then the call goes on unchanged.
 */
import { ownerOf, type ToolCallStage } from './toolCall.js';

export const appViewTap: ToolCallStage = (next) => (call) => {
  call.hub.appViews?.tap(call.s, call.req, ownerOf(call), call.name);
  return next(call);
};
