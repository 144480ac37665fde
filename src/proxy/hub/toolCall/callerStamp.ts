/**
 * Tool-call stage: who called. A call to a `bridge` upstream names the session's client and
 * this proxy's caller key (its approval question names the agent and its session); a call to
 * a server never carries that field, whoever set it (approval/callerMeta.ts).
 */
import { CALLER_META, withCaller } from '../approval/callerMeta.js';
import { isBridge, ownerOf, type ToolCallStage } from './toolCall.js';

export const callerStamp: ToolCallStage = (next) => async (call) => {
  const { hub, s } = call;
  if (isBridge(ownerOf(call))) {
    const client = s.clientName === undefined ? undefined : { name: s.clientName, version: s.clientVersion };
    call.params = withCaller(call.params, client, hub.callerKey);
  } else if ((call.params._meta as Record<string, unknown> | undefined)?.[CALLER_META] !== undefined)
    call.params = (await import('../approval/approvalGate.js')).withoutCaller(call.params);
  return next(call);
};
