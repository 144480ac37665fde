/**
 * A session's task requests (SEP-1686, the server being the receiver), for routeRequest.ts:
 * the task a task-augmented `tools/call` created is bound to the session (taskTable.ts);
 * `tasks/get`, `tasks/result` and `tasks/cancel` go to the server that owns the task, under
 * the server's id, and only for the session's own tasks; `tasks/list` is the session's own
 * tasks, one upstream page per page in aggregate scope (the cursor names the server and
 * carries that server's cursor).
 */
import { ErrorCode, type RpcRequest } from '../../jsonrpc/jsonRpc.js';
import type { Upstream } from '../../upstream/upstream.js';
import type { HubSession, RoutingSession, SessionHost } from '../sessionContracts.js';
import { RELATED_TASK, type ServerTask } from './taskTable.js';
import { taskListOn2026Server, taskRequestOn2026Server } from '../../protocol/crossings/inputRoundTasks.js';

type Result = Record<string, unknown>;

/** Binds the task in a `CreateTaskResult` to session `s`; the result as `s` sees it. */
export function taskCreated(hub: SessionHost, s: HubSession, u: Upstream, aggregate: boolean, result: Result): Result {
  const task = result.task as Result | undefined;
  if (typeof task?.taskId !== 'string') return result; // the server ran it as a plain call
  const exposed = hub.tasks.addServerTask(u, task.taskId, s, aggregate);
  for (const held of hub.tasks.takeHeld(u, task.taskId))
    s.notify('notifications/tasks/status', { ...held, taskId: exposed });
  return exposed === task.taskId ? result : { ...result, task: { ...task, taskId: exposed } };
}

/** Routes `tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/list` of session `s`. */
export function routeTaskRequest(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void> {
  const p = req.params ?? {};
  if (req.method === 'tasks/list') return s.single ? listSingle(hub, s, req, s.single) : listAggregate(hub, s, req);
  const id = String(p.taskId ?? '');
  const route = hub.tasks.ownTask(s, id, s.single);
  if (!route) return s.fail(req.id, { code: ErrorCode.InvalidParams, message: `Task not found: ${id}` });
  if (req.method === 'tasks/result') s.capResult(req.id, route.upstream);
  if (route.upstream.speaks2026) return taskRequestOn2026Server(s, req, route);
  if (route.exposed === route.taskId) return s.forward(req, route.upstream, p);
  return s.forward(req, route.upstream, { ...p, taskId: route.taskId }, undefined, (r) => exposeIds(r, route));
}

/** A task result (or `tasks/result` payload) with the server's id replaced by the exposed one. */
function exposeIds(r: Result, route: ServerTask<HubSession, Upstream>): Result {
  let out = r;
  if (out.taskId === route.taskId) out = { ...out, taskId: route.exposed };
  const meta = out._meta as Result | undefined;
  const related = meta?.[RELATED_TASK] as Result | undefined;
  if (related?.taskId === route.taskId)
    out = { ...out, _meta: { ...meta, [RELATED_TASK]: { ...related, taskId: route.exposed } } };
  return out;
}

function ownTasks(hub: SessionHost, s: HubSession, u: Upstream, tasks: unknown): Result[] {
  const out: Result[] = [];
  if (!Array.isArray(tasks)) return out;
  for (const t of tasks as Result[]) {
    const route = typeof t?.taskId === 'string' ? hub.tasks.serverTaskOwner(u, t.taskId) : undefined;
    if (route?.session === s) out.push(route.exposed === route.taskId ? t : { ...t, taskId: route.exposed });
  }
  return out;
}

async function listSingle(hub: SessionHost, s: RoutingSession, req: RpcRequest, u: Upstream): Promise<void> {
  if (u.speaks2026) return s.reply(req.id, { tasks: await taskListOn2026Server(hub, s, u) });
  return s.forward(req, u, req.params ?? {}, undefined, (r) => ({ ...r, tasks: ownTasks(hub, s, u, r.tasks) }));
}

function hasTaskList(u: Upstream): boolean {
  return u.isReady && !!(u.capabilities.tasks as Result | undefined)?.list;
}

/** The aggregate cursor: the server to ask next and that server's own cursor. */
function encodeCursor(serverId: string, cursor?: string): string {
  return Buffer.from(JSON.stringify(cursor === undefined ? [serverId] : [serverId, cursor])).toString('base64url');
}

function decodeCursor(cursor: unknown): [string, string | undefined] | undefined {
  if (typeof cursor !== 'string') return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && typeof v[0] === 'string' && (v[1] === undefined || typeof v[1] === 'string'))
      return [v[0], v[1] as string | undefined];
  } catch {
    // not ours
  }
  return undefined;
}

async function listAggregate(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void> {
  await hub.waitReady(s.scope);
  const { cursor, ...rest } = req.params ?? {};
  const servers = hub.inScope(s.scope).filter(hasTaskList);
  let index = 0;
  let upstreamCursor: string | undefined;
  if (cursor !== undefined) {
    const decoded = decodeCursor(cursor);
    index = decoded ? servers.findIndex((u) => u.id === decoded[0]) : -1;
    if (index < 0) return s.fail(req.id, { code: ErrorCode.InvalidParams, message: 'Invalid cursor' });
    upstreamCursor = decoded![1];
  }
  const u = servers[index];
  if (!u) return s.reply(req.id, { tasks: [] });
  const next = servers[index + 1];
  if (u.speaks2026) {
    const tasks = await taskListOn2026Server(hub, s, u);
    return s.reply(req.id, { tasks, ...(next ? { nextCursor: encodeCursor(next.id) } : {}) });
  }
  return s.forward(
    req,
    u,
    upstreamCursor === undefined ? rest : { ...rest, cursor: upstreamCursor },
    undefined,
    (r) => {
      const { nextCursor, ...page } = r;
      const more =
        typeof nextCursor === 'string' && nextCursor ? encodeCursor(u.id, nextCursor) : next && encodeCursor(next.id);
      return { ...page, tasks: ownTasks(hub, s, u, r.tasks), ...(more ? { nextCursor: more } : {}) };
    },
  );
}
