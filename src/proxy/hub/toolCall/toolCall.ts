/**
 * One `tools/call` as the stages of the tool-call pipeline (toolCallPipeline.ts) see it, and
 * the shape of a stage: `(next) => handler`, a function that answers the call itself (a
 * refusal, an error) or refines it and hands it to `next`.
 */
import type { RpcRequest } from '../../jsonrpc/jsonRpc.js';
import type { Upstream } from '../../upstream/upstream.js';
import type { RoutingSession, SessionHost } from '../sessionContracts.js';

export interface ToolCall {
  readonly hub: SessionHost;
  readonly s: RoutingSession;
  readonly req: RpcRequest;
  /** The tool's name as the client called it. */
  readonly exposed: string;
  /** The server that owns the tool (resolveOwner.ts); unset when none does. */
  upstream?: Upstream;
  /** The tool's name on that server. */
  name: string;
  /** What goes to that server: the client's params, under the server's name for the tool. */
  params: Record<string, unknown>;
  /** How long the server has to answer (toolTimeout.ts). */
  timeoutMs?: number;
}

export type ToolCallHandler = (call: ToolCall) => Promise<void>;
export type ToolCallStage = (next: ToolCallHandler) => ToolCallHandler;

/** A call of `req` (a `tools/call`) of session `s`, before any stage. */
export function newToolCall(hub: SessionHost, s: RoutingSession, req: RpcRequest): ToolCall {
  const params = req.params ?? {};
  const exposed = String(params.name ?? '');
  return { hub, s, req, exposed, name: exposed, params };
}

/** The owner of `call`, for the stages after ownerFound.ts (which answers a call without one). */
export function ownerOf(call: ToolCall): Upstream {
  if (!call.upstream) throw new Error(`tool call "${call.exposed}" has no owner past ownerFound`);
  return call.upstream;
}

/** Whether `u` is a `bridge` upstream (another proxy's bridge, which applies the approval policy itself). */
export function isBridge(u: Upstream): boolean {
  return u.entry.kind === 'remote' && u.entry.type === 'bridge';
}

/** `stages` around `last`, the first of `stages` outermost: the call goes through them in order. */
export function composeStages(stages: readonly ToolCallStage[], last: ToolCallHandler): ToolCallHandler {
  return stages.reduceRight<ToolCallHandler>((next, stage) => stage(next), last);
}
