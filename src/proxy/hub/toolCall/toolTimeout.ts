/**
 * Tool-call stage: how long the owner has to answer: the config's `toolTimeouts` for this
 * tool, else the server's timeout (config/toolFilter.ts).
 */
import { toolTimeoutFor } from '../../config/toolFilter.js';
import { ownerOf, type ToolCallStage } from './toolCall.js';

export const toolTimeout: ToolCallStage = (next) => (call) => {
  call.timeoutMs = toolTimeoutFor(call.name, ownerOf(call).entry, call.hub.config.toolTimeouts);
  return next(call);
};
