/**
 * Tool-call stage: tool pinning (src/proxy/pinning/). A tool whose definition drifted from its
 * pin is withheld: not listed (so an aggregate resolves no owner for it), and a call of it is
 * refused with a tool result that says what changed and where to accept or reject it.
 */
import { ErrorCode, type RpcErrorObject } from '../../jsonrpc/jsonRpc.js';
import type { ToolDrift } from '../../../shared/status.js';
import type { ToolCallStage } from './toolCall.js';

export const withheldByPin: ToolCallStage = (next) => async (call) => {
  const { hub, s, req, exposed } = call;
  const withheld = !call.upstream || s.single ? hub.withheldTool?.(exposed, s.scope) : undefined;
  if (!withheld) return next(call);
  const { message, data } = withheldError(exposed, withheld.serverId, withheld.drift);
  const detail = { ...(data as Record<string, unknown>), policy: 'pinning' as const, server: withheld.serverId };
  const { refuseToolCall } = await import('../policyRefusal.js');
  return refuseToolCall(s, req, message, { ...detail, tool: withheld.drift.tool });
};

function withheldError(exposed: string, serverId: string, d: ToolDrift): RpcErrorObject {
  const what =
    d.kind === 'renamed'
      ? `its definition changed: it is the pinned tool "${d.from}" renamed`
      : d.kind === 'unverified'
        ? 'its pin cannot be read, so it may have changed'
        : `its definition changed since it was pinned (${d.fields.join(', ') || 'definition'} changed)`;
  const state = d.rejected ? 'the change was rejected' : 'accept or reject the change in the panel';
  return {
    code: ErrorCode.InvalidParams,
    message: `Tool ${exposed} of server "${serverId}" is withheld: ${what}; ${state}`,
    data: { serverId, tool: d.tool, change: d.kind, fields: d.fields, ...(d.from ? { from: d.from } : {}) },
  };
}
