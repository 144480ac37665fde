/**
 * Tool-call stage: the server that owns the exposed name and its own name for the tool. A
 * single-server session's server owns every name; an aggregate waits for its servers in their
 * first start, then resolves the namespaced name. A name nobody owns goes on without an owner
 * (withheldByPin.ts, then ownerFound.ts, say why).
 */
import type { ToolCallStage } from './toolCall.js';

export const resolveOwner: ToolCallStage = (next) => async (call) => {
  const { hub, s, exposed } = call;
  call.upstream = s.single;
  if (!call.upstream) {
    await hub.waitReady(s.scope);
    const item = hub.resolveTool(exposed);
    call.upstream = item && hub.upstream(item.serverId);
    call.name = item?.name ?? exposed;
    if (call.name !== exposed) call.params = { ...call.params, name: call.name };
  }
  return next(call);
};
