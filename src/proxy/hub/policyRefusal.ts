/**
 * A tool call that a policy of the runtime refuses (the approval policy, the tool filters,
 * pinning's withheld tools, MCP Apps' visibility), answered the way MCP 2025-11-25 answers a tool's own failure: a
 * result with `isError: true` whose text says why and how to allow the tool. Clients give such a
 * result to their model ("Tool Execution Errors"), so the model can tell the user; many never
 * show it a JSON-RPC error. A JSON-RPC error stays for what cannot be routed at all (an unknown
 * tool, a server that is not ready). The call is recorded as denied (activity log, traces),
 * and the result's `_meta` names the policy and the tool for programs. Loaded on the first
 * refusal, with the approval policy's file (scripts/buildProxy.mjs).
 */
import { ErrorCode, type RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { RoutingSession } from './sessionContracts.js';

/** The `_meta` key of a refusal: `{ policy, server, tool, ... }`. */
export const REFUSAL_META = 'dev.qiming/refusal';

/** Which policy refused a call. */
export type RefusingPolicy = 'approval' | 'filter' | 'pinning' | 'visibility';

/** What a refusal's `_meta` says besides its text. */
export interface RefusalDetail {
  policy: RefusingPolicy;
  /** The server that owns the tool. */
  server: string;
  /** The tool's name as its server gives it. */
  tool: string;
  [more: string]: unknown;
}

/** The tool result of a refused call: `text` (why, and how to allow it) for the model, `detail` for programs. */
export function refusalResult(text: string, detail: RefusalDetail): Record<string, unknown> {
  return { content: [{ type: 'text', text }], isError: true, _meta: { [REFUSAL_META]: detail } };
}

/** Records `req` of `s` as denied and answers it with {@link refusalResult}. */
export function refuseToolCall(s: RoutingSession, req: RpcRequest, text: string, detail: RefusalDetail): Promise<void> {
  s.denied(req.id, { code: ErrorCode.InvalidParams, message: text });
  return s.reply(req.id, refusalResult(text, detail));
}

/** Refuses `req` of `s`, a call of tool `tool` of `server` (called `exposed`) that the tool filters hide. */
export function refuseFilteredTool(
  s: RoutingSession,
  req: RpcRequest,
  exposed: string,
  server: string,
  tool: string,
): Promise<void> {
  return refuseToolCall(s, req, filteredToolText(exposed, server, tool), { policy: 'filter', server, tool });
}

/** The tool result answering a call of a tool the filters hide (convert's pass-through). */
export function filteredToolResult(exposed: string, server: string, tool: string): Record<string, unknown> {
  return refusalResult(filteredToolText(exposed, server, tool), { policy: 'filter', server, tool });
}

/** What a call of a tool the filters hide is told: which server hides it, and where to allow it. */
function filteredToolText(exposed: string, server: string, tool: string): string {
  return (
    `Tool ${exposed} is not allowed by the proxy configuration: the tool filters of server "${server}" hide ` +
    `${JSON.stringify(tool)}. To allow it, take it out of that server's "denyTools" and "tools": {"deny"} ` +
    `(or add it to its "allowTools" or "tools": {"allow"}, where it has them) in the config, and out of ` +
    `--deny-tools (or into --allow-tools) on the command line`
  );
}
