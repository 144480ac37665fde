/**
 * The tool-call pipeline: every stage a `tools/call` goes through, in order, in one list (a
 * stage is `(next) => handler`: toolCall.ts). A new policy on tool calls is a stage of its own
 * in this folder, put in the list where it applies. `call_tool` (economy/metaTools.ts) sends
 * the tool it names through the same list.
 */
import type { RpcRequest } from '../../jsonrpc/jsonRpc.js';
import type { RoutingSession, SessionHost } from '../sessionContracts.js';
import { composeStages, newToolCall, type ToolCallStage } from './toolCall.js';
import { resolveOwner } from './resolveOwner.js';
import { withheldByPin } from './withheldByPin.js';
import { ownerFound } from './ownerFound.js';
import { allowedByFilter } from './allowedByFilter.js';
import { appVisibility } from './appVisibility.js';
import { approval } from './approval.js';
import { appViewTap } from './appViewTap.js';
import { callerStamp } from './callerStamp.js';
import { capResult } from './capResult.js';
import { toolTimeout } from './toolTimeout.js';
import { tasksExtension } from './tasksExtension.js';
import { taskAugmented } from './taskAugmented.js';
import { forwardCall } from './forwardCall.js';

export const TOOL_CALL_STAGES: readonly ToolCallStage[] = [
  resolveOwner, // the server that owns the name, and its own name for the tool
  withheldByPin, // tool pinning: a drifted tool is refused, saying what changed
  ownerFound, // no ready server owns the name: unknown, or its server's state
  allowedByFilter, // the server's tool filters
  appVisibility, // MCP Apps: a tool for the app view only is not the agent's, and the reverse
  approval, // the approval policy (a bridge upstream applies its own)
  appViewTap, // MCP Apps: a call of a tool with a view is kept for the view, the app told
  callerStamp, // the caller named to a bridge, stripped for a server
  capResult, // an aggregate's result cut to maxResultBytes
  toolTimeout, // toolTimeouts, else the server's timeout
  tasksExtension, // a 2026-07-28 client: the tasks extension
  taskAugmented, // a 2025 client's task-augmented call
];

const handle = composeStages(TOOL_CALL_STAGES, forwardCall);

/** Runs the `tools/call` `req` of session `s` through the pipeline, to its answer. */
export function callTool(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void> {
  return handle(newToolCall(hub, s, req));
}
