/**
 * Tool-call stage: a 2025 client's task-augmented call (SEP-1686, a `task` param) binds the
 * task it creates to this session (tasks/taskRequests.ts); on a 2026 server the task is made
 * through its envelope and shown as a 2025 one (protocol/crossings/inputRoundTasks.ts). A plain call pays
 * one field check and goes on.
 */
import { taskCreated } from '../tasks/taskRequests.js';
import { taskCallOn2026Server } from '../../protocol/crossings/inputRoundTasks.js';
import { ownerOf, type ToolCallStage } from './toolCall.js';

export const taskAugmented: ToolCallStage = (next) => (call) => {
  const { hub, s, req } = call;
  if (req.params?.task === undefined) return next(call);
  const u = ownerOf(call);
  const created = (r: Record<string, unknown>) => taskCreated(hub, s, u, !s.single, r);
  if (u.speaks2026) return taskCallOn2026Server(s, req, u, call.params, call.timeoutMs!, created);
  return s.forward(req, u, call.params, call.timeoutMs, created);
};
