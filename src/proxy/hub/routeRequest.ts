/**
 * Where a downstream session's request goes when the session does not answer it itself
 * (for `DownstreamSession`): a tool or prompt by its exposed name, a resource by its uri,
 * a completion by its ref, each to the upstream that owns it under its own name; a log
 * level to every capable 2025 server of an aggregate (answered locally for a 2026 one); a task request by its task id
 * (taskRequests.ts); anything else to a single-server session's server, or Method not found.
 */
import { ErrorCode, type RpcErrorObject, type RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { ToolDrift } from '../../shared/status.js';
import { toolTimeoutFor } from '../config/toolFilter.js';
import { serverIdForName } from './naming.js';
import type { RoutingSession, SessionHost } from './sessionContracts.js';
import { routeTaskRequest, taskCreated } from './tasks/taskRequests.js';
import { isLogLevel } from './modern/logLevels.js';
import { modernToolCall, routeModernTaskRequest } from './tasks/forModernClient.js';
import { legacyTaskCallOnModern } from './tasks/forLegacyClient.js';
import { META_TOOL_NAMES } from './economy/metaToolNames.js';
import { KEPT_RESULT_SCHEME } from './economy/resultCap.js';
import type { Upstream } from '../upstream/upstream.js';
import { CALLER_META, withCaller } from './approval/callerMeta.js';
import { refuseHidden } from '../apps/toolAudience.js';

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
      return callNamed(hub, s, req, 'tool');
    case 'prompts/get':
      return callNamed(hub, s, req, 'prompt');
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
  return answerMetaTool(hub, s, req, (call) => callNamed(hub, s, call, 'tool'));
}

async function callNamed(hub: SessionHost, s: RoutingSession, req: RpcRequest, what: 'tool' | 'prompt'): Promise<void> {
  const p = req.params ?? {};
  const exposed = String(p.name ?? '');
  let u = s.single;
  let name = exposed;
  if (!u) {
    await hub.waitReady(s.scope);
    const item = what === 'tool' ? hub.resolveTool(exposed) : hub.resolvePrompt(exposed);
    u = item && hub.upstream(item.serverId);
    name = item?.name ?? exposed;
  }
  // Tool pinning withholds a tool whose definition drifted: not listed, and a call is refused saying why.
  const withheld = what === 'tool' && (!u || s.single) ? hub.withheldTool?.(exposed, s.scope) : undefined;
  if (withheld) {
    const { message, data } = withheldError(exposed, withheld.serverId, withheld.drift);
    const detail = { ...(data as Record<string, unknown>), policy: 'pinning' as const, server: withheld.serverId };
    const { refuseToolCall } = await import('./policyRefusal.js');
    return refuseToolCall(s, req, message, { ...detail, tool: withheld.drift.tool });
  }
  if (!u) {
    // A server that is not ready lists nothing: name it, its state and why, by the prefix.
    const ownerId = serverIdForName(
      exposed,
      hub.inScope(s.scope).map((x) => x.id),
    );
    const owner = ownerId === undefined ? undefined : hub.upstream(ownerId);
    if (owner && !owner.isReady) {
      const why = owner.lastError ? `: ${owner.lastError}` : '';
      return s.fail(req.id, {
        code: ErrorCode.ServerNotReady,
        message: `${what} "${exposed}" belongs to server "${owner.id}", which is ${owner.state}${why}`,
      });
    }
    return s.fail(req.id, { code: ErrorCode.InvalidParams, message: `Unknown ${what}: ${exposed}` });
  }
  if (what === 'tool' && !hub.toolAllowed(u, name)) {
    const { refuseFilteredTool } = await import('./policyRefusal.js');
    return refuseFilteredTool(s, req, exposed, u.id, name);
  }
  if (what === 'tool' && (await refuseHidden(s, req, u, name, exposed))) return;
  // The approval policy (approval/approvalGate.ts); a `bridge` upstream's bridge applies it, so it is taken once.
  if (what === 'tool' && approvalApplies(hub, u)) {
    const { approveToolCall } = await import('./approval/approvalGate.js');
    if (!(await approveToolCall(hub, s, req, u, name, exposed))) return;
  }
  if (what === 'tool' && hub.appViews) hub.appViews.tap(s, req, u, name);
  const timeoutMs = what === 'tool' ? toolTimeoutFor(name, u.entry, hub.config.toolTimeouts) : u.entry.timeoutMs;
  let params = name === exposed ? p : { ...p, name };
  // Who called goes to a bridge (its approval question names the agent and its session's key), never to a server (approval/callerMeta.ts).
  if (what === 'tool' && isBridge(u))
    params = withCaller(
      params,
      s.clientName === undefined ? undefined : { name: s.clientName, version: s.clientVersion },
      hub.callerKey,
    );
  else if (what === 'tool' && (p._meta as Record<string, unknown> | undefined)?.[CALLER_META] !== undefined)
    params = (await import('./approval/approvalGate.js')).withoutCaller(params);
  // An aggregate's tool result over its server's maxResultBytes is cut (economy/resultCap.ts).
  if (what === 'tool') s.capResult(req.id, u);
  // A 2026 client: the tasks extension (forModernClient.ts).
  if (s.isModern) return modernToolCall(hub, s, req, u, params, timeoutMs);
  // A task-augmented call (SEP-1686) binds the task it creates to this session; a plain call pays one field check.
  const owner = u;
  const created =
    p.task === undefined ? undefined : (r: Record<string, unknown>) => taskCreated(hub, s, owner, !s.single, r);
  if (created && u.isModern) return legacyTaskCallOnModern(s, req, u, params, timeoutMs, created);
  return s.forward(req, u, params, timeoutMs, created);
}

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

/** Whether a tool call on `u` goes through the approval policy here. */
function approvalApplies(hub: SessionHost, u: Upstream): boolean {
  return hub.config.approval?.top !== 'off' && !isBridge(u);
}

function isBridge(u: Upstream): boolean {
  return u.entry.kind === 'remote' && u.entry.type === 'bridge';
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
