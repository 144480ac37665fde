/**
 * Where a downstream session's request goes when the session does not answer it itself
 * (for `DownstreamSession`): a tool call through the tool-call pipeline (toolCall/), a prompt
 * by its exposed name (promptGet.ts), a resource by its uri,
 * a completion by its ref, each to the upstream that owns it under its own name; a log
 * level to every capable 2025 server of an aggregate (answered locally for a 2026 one); a task request by its task id
 * (taskRequests.ts); anything else to a single-server session's server, or Method not found.
 */
import { ErrorCode, type RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { RoutingSession, SessionHost } from './sessionContracts.js';
import { routeTaskRequest } from './tasks/taskRequests.js';
import { isLogLevel } from '../protocol/rev2026-07-28/logLevels.js';
import { routeModernTaskRequest } from '../protocol/crossings/heldTasks.js';
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
      // A 2026 client's task requests (the tasks extension; tasks/result and tasks/list are refused before this).
      return s.isModern ? routeModernTaskRequest(hub, s, req) : routeTaskRequest(hub, s, req);
    case 'tasks/update':
      if (s.isModern) return routeModernTaskRequest(hub, s, req);
      return s.single
        ? s.forward(req, s.single, p)
        : s.fail(req.id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${req.method}` });
    case 'logging/setLevel':
      return setLevel(hub, s, req);
    default:
      if (s.single) return s.forward(req, s.single, p);
      return s.fail(req.id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${req.method}` });
  }
}

/**
 * A 2025 client's log level: recorded on the session (a 2026 server gets it on each request
 * of that session: logLevels.ts), and sent to the 2025 servers in scope as before.
 */
function setLevel(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void> {
  const p = req.params ?? {};
  if (isLogLevel(p.level)) s.logLevel = p.level;
  if (s.single && !s.single.isModern) return s.forward(req, s.single, p);
  if (!isLogLevel(p.level))
    return s.fail(req.id, {
      code: ErrorCode.InvalidParams,
      message: `Invalid params: unknown log level ${JSON.stringify(p.level)}`,
    });
  for (const u of s.single ? [] : hub.inScope(s.scope)) {
    if (u.isReady && u.capabilities.logging && !u.isModern)
      void u.forward(req.method, p, { timeoutMs: u.entry.timeoutMs });
  }
  return s.reply(req.id, {});
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
