/**
 * A `prompts/get` (for routeRequest.ts): the prompt by its exposed name, to the server that
 * owns it under its own name. No policy applies to a prompt; a 2026-07-28 client's call to a
 * 2025 server is held across its input rounds as any call is (DownstreamSession.forward).
 */
import type { RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { RoutingSession, SessionHost } from './sessionContracts.js';
import { missingOwnerError } from './toolCall/ownerFound.js';

export async function getPrompt(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void> {
  const p = req.params ?? {};
  const exposed = String(p.name ?? '');
  if (s.single) return s.forward(req, s.single, p);
  await hub.waitReady(s.scope);
  const item = hub.resolvePrompt(exposed);
  const u = item && hub.upstream(item.serverId);
  if (!u) return s.fail(req.id, missingOwnerError(hub, s.scope, 'prompt', exposed));
  return s.forward(req, u, item.name === exposed ? p : { ...p, name: item.name });
}
