/**
 * Tool-call stage: a call whose name no ready server owns is answered here. A server that is
 * not ready lists nothing, so the name's prefix says whose it is: its state and why; any other
 * name is unknown. `prompts/get` answers a missing prompt the same way (promptGet.ts).
 */
import { ErrorCode, type RpcErrorObject } from '../../jsonrpc/jsonRpc.js';
import { serverIdForName } from '../naming.js';
import type { SessionHost, SessionScope } from '../sessionContracts.js';
import type { ToolCallStage } from './toolCall.js';

export const ownerFound: ToolCallStage = (next) => (call) => {
  if (call.upstream) return next(call);
  return call.s.fail(call.req.id, missingOwnerError(call.hub, call.s.scope, 'tool', call.exposed));
};

/** The error for a `what` called `exposed` that no ready server of `scope` owns. */
export function missingOwnerError(
  hub: SessionHost,
  scope: SessionScope,
  what: 'tool' | 'prompt',
  exposed: string,
): RpcErrorObject {
  const ownerId = serverIdForName(
    exposed,
    hub.inScope(scope).map((x) => x.id),
  );
  const owner = ownerId === undefined ? undefined : hub.upstream(ownerId);
  if (owner && !owner.isReady) {
    const why = owner.lastError ? `: ${owner.lastError}` : '';
    return {
      code: ErrorCode.ServerNotReady,
      message: `${what} "${exposed}" belongs to server "${owner.id}", which is ${owner.state}${why}`,
    };
  }
  return { code: ErrorCode.InvalidParams, message: `Unknown ${what}: ${exposed}` };
}
