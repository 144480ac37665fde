/**
 * Where a downstream session's request goes when the session does not answer it itself
 * (for `DownstreamSession`): a tool call through the tool-call pipeline (toolCall/), a prompt
 * by its exposed name (promptGet.ts), a resource by its uri,
 * a completion by its ref, each to the upstream that owns it under its own name; a log
 * level as 2025-11-25 sets it (protocol/rev2025-11-25/setLevel.ts); a task request as the
 * session's revision has it (its codec: protocol/sessionCodec.ts); anything else to a single-server session's server, or Method not found.
 */
import { ErrorCode, type RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { RoutingSession, SessionHost } from './sessionContracts.js';
import { setLevel } from '../protocol/rev2025-11-25/setLevel.js';
import { META_TOOL_NAMES } from './economy/metaToolNames.js';
import { KEPT_RESULT_SCHEME } from './economy/resultCap.js';
import { callTool } from './toolCall/toolCallPipeline.js';
import { getPrompt } from './promptGet.js';

/** Why a kept result's URI is unknown to a session other than the one that received it (economy/resultStore.ts). */
const KEPT_ELSEWHERE = ' (a result the proxy cut is read back only in the session that received it, while it lasts)';

/** Routes `req` of session `s` (not a list, `initialize` nor `ping`: the session answers those). */
export function routeRequest(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void> {
  const p = req.params ?? {};
  switch (req.method) {
    case 'tools/call':
      // An aggregate's meta-tools (economy/metaTools.ts); under `"toolExposure": "all"` a pass-through, as without them.
      if (s.scope.serverId === undefined && hub.config.toolExposure !== 'all' && META_TOOL_NAMES.has(p.name as string))
        return metaToolCall(hub, s, req);
      return callTool(hub, s, req);
    case 'prompts/get':
      return getPrompt(hub, s, req);
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return callResource(hub, s, req);
    case 'completion/complete':
      return complete(hub, s, req);
    case 'tasks/get':
    case 'tasks/result':
    case 'tasks/cancel':
    case 'tasks/list':
    case 'tasks/update':
      // As the session's revision has them: 2025-11-25's task requests, or 2026-07-28's tasks extension.
      return s.codec.routeTasks(hub, s, req);
    case 'logging/setLevel':
      return setLevel(hub, s, req);
    default:
      if (s.single) return s.forward(req, s.single, p);
      return s.fail(req.id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${req.method}` });
  }
}

/** `search_tools` or `call_tool`; `call_tool` routes its tool as a `tools/call` of that name (one in-process hop). */
async function metaToolCall(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void> {
  const { answerMetaTool } = await import('./economy/metaTools.js');
  return answerMetaTool(hub, s, req, (call) => callTool(hub, s, call));
}

async function callResource(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void> {
  const uri = String(req.params?.uri ?? '');
  const kept = s.readKept(req);
  if (kept) return kept;
  if (!s.single) await hub.waitReady(s.scope);
  const u = hub.resourceOwner(uri, s.scope);
  if (!u) {
    const elsewhere = uri.startsWith(KEPT_RESULT_SCHEME) ? KEPT_ELSEWHERE : '';
    return s.fail(req.id, {
      code: ErrorCode.InvalidParams,
      message: `Unknown resource: ${uri}${elsewhere}`,
      data: { uri },
    });
  }
  if (req.method === 'resources/subscribe' || req.method === 'resources/unsubscribe') {
    const res = await (req.method === 'resources/subscribe'
      ? hub.subscribe(u, uri, s, req.params)
      : hub.unsubscribe(u, uri, s));
    return 'error' in res ? s.fail(req.id, res.error) : s.reply(req.id, res.result);
  }
  return s.forward(req, u, req.params ?? {});
}

async function complete(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void> {
  const p = req.params ?? {};
  const ref = (p.ref ?? {}) as Record<string, unknown>;
  // A kept result's URI is the proxy's, never a server's (Hub.resourceOwner), whatever the scope.
  if (ref.type === 'ref/resource' && String(ref.uri ?? '').startsWith(KEPT_RESULT_SCHEME))
    return s.fail(req.id, { code: ErrorCode.InvalidParams, message: `Unknown resource template: ${String(ref.uri)}` });
  if (s.single) return s.forward(req, s.single, p);
  await hub.waitReady(s.scope);
  if (ref.type === 'ref/prompt') {
    const item = hub.resolvePrompt(String(ref.name));
    const u = item && hub.upstream(item.serverId);
    if (!u) return s.fail(req.id, { code: ErrorCode.InvalidParams, message: `Unknown prompt: ${String(ref.name)}` });
    return s.forward(req, u, { ...p, ref: { ...ref, name: item!.name } });
  }
  const u = hub.resourceOwner(String(ref.uri ?? ''), s.scope);
  if (!u)
    return s.fail(req.id, { code: ErrorCode.InvalidParams, message: `Unknown resource template: ${String(ref.uri)}` });
  return s.forward(req, u, p);
}
