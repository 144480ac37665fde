/**
 * Tool-call stage: an aggregate's tool result over its server's `maxResultBytes` is cut, the
 * whole kept for the session to read back (economy/resultCap.ts; the session cuts it as it
 * answers).
 */
import { ownerOf, type ToolCallStage } from './toolCall.js';

export const capResult: ToolCallStage = (next) => (call) => {
  call.s.capResult(call.req.id, ownerOf(call));
  return next(call);
};
