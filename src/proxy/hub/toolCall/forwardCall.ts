/**
 * The tool-call pipeline's last handler: the call goes to its owner through the session
 * (DownstreamSession.forward: the queue bound, progress, cancellation, tracing and the
 * revisions' translation).
 */
import { ownerOf, type ToolCallHandler } from './toolCall.js';

export const forwardCall: ToolCallHandler = (call) =>
  call.s.forward(call.req, ownerOf(call), call.params, call.timeoutMs);
