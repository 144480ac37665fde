/**
 * Tool-call stage: a 2026-07-28 client's call goes the way of the tasks extension
 * (protocol/crossings/heldTasks.ts): through to a 2026 server, task-augmented or plain to a 2025 one.
 * A 2025 client's call goes on.
 */
import { tasksExtensionCall } from '../../protocol/crossings/heldTasks.js';
import { ownerOf, type ToolCallStage } from './toolCall.js';

export const tasksExtension: ToolCallStage = (next) => (call) => {
  if (!call.s.speaks2026) return next(call);
  return tasksExtensionCall(call.hub, call.s, call.req, ownerOf(call), call.params, call.timeoutMs!);
};
