/**
 * A 2026-07-28 client and tasks (the `io.modelcontextprotocol/tasks` extension, SEP-2663),
 * for routeRequest.ts; the tasks themselves are in protocol/crossings/heldTaskTable.ts.
 *
 * In front of a 2025-11-25 server with tasks (SEP-1686), the proxy is the extension's server
 * and the 2025 server's task requestor:
 * - `tools/call` of a client that declared the extension in its envelope goes upstream
 *   task-augmented (`task: {}`) when the tool's `execution.taskSupport` is `required` or
 *   `optional` (the extension lets the server decide); the `CreateTaskResult` is answered
 *   flat, `resultType: "task"`, `ttl`/`pollInterval` as `ttlMs`/`pollIntervalMs`, under an
 *   unguessable id of the proxy's. A client without the extension calling a task-required
 *   tool gets -32021 naming the extension; a legacy `task` param is ignored (dropped).
 * - The proxy calls the server's `tasks/result` at once (it blocks until the task ends, and is
 *   the channel on which a 2025 server delivers the requests of an input-required task):
 *   those requests are parked (protocol/crossings/heldTaskTable.ts) and shown in `tasks/get` as `inputRequests`;
 *   the final result is kept.
 * - `tasks/get` asks the server's `tasks/get` and answers the extension's DetailedTask:
 *   `completed` with `result` inlined (a 2025 `failed` task whose result is a tool result,
 *   `isError`, is `completed` in 2026: "failed" is only for a JSON-RPC error, then inlined
 *   as `error`), `input_required` with the parked requests (`working` while none has
 *   arrived yet). A terminal state is kept and answered from then on.
 * - `tasks/update` answers the parked requests its `inputResponses` name (others ignored);
 *   `tasks/cancel` is the server's `tasks/cancel`, acknowledged `{}` (also for a task already
 *   terminal, as the extension asks).
 * In front of a 2026 server, everything passes through; only in aggregate scope the task id
 * is prefixed with the server id (and put back).
 * A client that did not declare the extension gets -32021 for `tasks/get|update|cancel`.
 */
import { ErrorCode, type RpcErrorObject, type RpcRequest } from '../../jsonrpc/jsonRpc.js';
import type { Upstream } from '../../upstream/upstream.js';
import type { RoutingSession, SessionHost } from '../../hub/sessionContracts.js';
import { RELATED_TASK } from '../../hub/tasks/taskTable.js';
import { touched, type HeldTask, type HeldTaskTable } from './heldTaskTable.js';
import { task2026, TASKS_EXTENSION, withoutRelatedTask } from '../taskShapes.js';
import { META_CLIENT_CAPABILITIES } from '../rev2026-07-28/vocabulary.js';

type Obj = Record<string, unknown>;

/** How long a `tasks/get` of an input-required task waits for the server's request to reach the proxy. */
const INPUT_WAIT_MS = 2_000;
/** Errors that say nothing about the task (the proxy asks again later). */
const TRANSIENT: ReadonlySet<number> = new Set([
  ErrorCode.ConnectionClosed,
  ErrorCode.RequestTimeout,
  ErrorCode.ServerNotReady,
  ErrorCode.QueueFull,
]);

export function declaresTasks(req: RpcRequest): boolean {
  const caps = (req.params?._meta as Obj | undefined)?.[META_CLIENT_CAPABILITIES] as Obj | undefined;
  return !!(caps?.extensions as Obj | undefined)?.[TASKS_EXTENSION];
}

function missingExtension(what: string): RpcErrorObject {
  return {
    code: ErrorCode.MissingRequiredClientCapability,
    message: `Missing required client capability: ${what} needs the ${TASKS_EXTENSION} extension`,
    data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  };
}

function taskSupportOf(u: Upstream, name: string): unknown {
  const tool = u.lists.tools.find((t) => t.name === name);
  return (tool?.execution as Obj | undefined)?.taskSupport;
}

/** A modern session's `tools/call` of tool `params.name` (already the server's name) on `u`. */
export function tasksExtensionCall(
  hub: SessionHost,
  s: RoutingSession,
  req: RpcRequest,
  u: Upstream,
  params: Obj,
  timeoutMs: number,
): Promise<void> {
  if (u.speaks2026) {
    if (s.single) return s.forward(req, u, params, timeoutMs);
    return s.forward(req, u, params, timeoutMs, (r) =>
      r.resultType === 'task' && typeof r.taskId === 'string'
        ? { ...r, taskId: hub.heldTasks.addPassed(u, r.taskId).id }
        : r,
    );
  }
  const { task: legacy, ...plain } = params;
  const support = taskSupportOf(u, String(plain.name));
  const declared = declaresTasks(req);
  if (support === 'required' && !declared)
    return s.fail(req.id, missingExtension(`tool "${String(req.params?.name)}"`));
  if (!declared || (support !== 'required' && support !== 'optional'))
    return s.forward(req, u, legacy === undefined ? params : plain, timeoutMs);
  return s.forward(req, u, { ...plain, task: {} }, timeoutMs, (r) => translatedCreated(hub, u, r));
}

function translatedCreated(hub: SessionHost, u: Upstream, r: Obj): Obj {
  const task = r.task as Obj | undefined;
  if (typeof task?.taskId !== 'string') return r; // the server ran it as a plain call
  const t = hub.heldTasks.addTranslated(u, task.taskId);
  t.last = task;
  hub.tasks.takeHeld(u, task.taskId); // statuses sent before the CreateTaskResult: the client polls
  fetchOutcome(t);
  const { task: _task, ...rest } = r;
  return { ...withoutRelatedTask(rest), ...task2026(t.id, task), resultType: 'task' };
}

/** Starts the server's `tasks/result` for `t` unless it is running or has answered. */
function fetchOutcome(t: HeldTask): void {
  if (t.outcome || t.fetching) return;
  const u = t.upstream;
  t.fetching = u.forward('tasks/result', { taskId: t.taskId }, { timeoutMs: u.entry.timeoutMs }).then((res) => {
    t.fetching = undefined;
    if ('error' in res) {
      if (TRANSIENT.has(res.error.code)) return;
      t.outcome = { error: res.error };
    } else t.outcome = { result: withoutRelatedTask(res.result) };
    touched(t);
  });
}

/** Resolves when `t` changes or after `ms`. */
function changed(t: HeldTask, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    t.waiters.add(done);
    function done() {
      clearTimeout(timer);
      t.waiters.delete(done);
      resolve();
    }
  });
}

/** `tasks/get`, `tasks/update` and `tasks/cancel` of a modern session. */
export function routeExtensionTaskRequest(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void> {
  const p = req.params ?? {};
  const id = String(p.taskId ?? '');
  const t = hub.heldTasks.get(id);
  // Single scope on a 2026 server: its own ids, everything as the server answers it.
  if (!t && s.single && s.single.speaks2026) return s.forward(req, s.single, p);
  if (!declaresTasks(req)) return s.fail(req.id, missingExtension(req.method));
  if (!t || (s.single && t.upstream !== s.single) || !hub.inScope(s.scope).includes(t.upstream)) {
    return s.fail(req.id, {
      code: ErrorCode.InvalidParams,
      message: `Failed to retrieve task: Task not found (${id})`,
    });
  }
  if (!t.translated) {
    return s.forward(req, t.upstream, { ...p, taskId: t.taskId }, undefined, (r) =>
      r.taskId === t.taskId ? { ...r, taskId: t.id } : r,
    );
  }
  if (req.method === 'tasks/get') return getTranslated(s, req, t);
  if (req.method === 'tasks/update') return updateTranslated(s, req, t);
  return cancelTranslated(hub.heldTasks, s, req, t);
}

function inputRequestsOf(t: HeldTask): Obj {
  const out: Obj = {};
  for (const [key, p] of t.inputs) out[key] = { method: p.method, params: p.params };
  return out;
}

async function getTranslated(s: RoutingSession, req: RpcRequest, t: HeldTask): Promise<void> {
  if (t.final) return s.reply(req.id, t.final);
  const u = t.upstream;
  const res = await u.forward('tasks/get', { taskId: t.taskId }, { timeoutMs: u.entry.timeoutMs });
  if ('error' in res) return s.fail(req.id, res.error);
  const d = await detailedTask(t, res.result, INPUT_WAIT_MS);
  return 'code' in d ? s.fail(req.id, d as RpcErrorObject) : s.reply(req.id, d);
}

/**
 * The DetailedTask of translated task `t` in the server's state `legacy` (a 2025 Task), or
 * the error when its result does not come; waits up to `inputWaitMs` for the request of an
 * input-required task. A terminal state is kept in `t.final`.
 */
export async function detailedTask(t: HeldTask, legacy: Obj, inputWaitMs: number): Promise<Obj | RpcErrorObject> {
  if (t.final) return t.final;
  const base = task2026(t.id, legacy);
  const status = legacy.status;
  if (status !== 'completed' && status !== 'failed' && status !== 'cancelled') {
    fetchOutcome(t);
    if (status === 'input_required' && t.inputs.size === 0 && inputWaitMs > 0) await changed(t, inputWaitMs);
    if (t.inputs.size > 0) return { ...base, status: 'input_required', inputRequests: inputRequestsOf(t) };
    return { ...base, status: 'working' };
  }
  const u = t.upstream;
  if (status !== 'cancelled') {
    fetchOutcome(t);
    if (!t.outcome && t.fetching) await Promise.race([t.fetching, changed(t, u.entry.timeoutMs || 60_000)]);
    if (!t.outcome)
      return {
        code: ErrorCode.InternalError,
        message: `the result of task ${t.id} did not arrive from server "${u.id}"`,
      };
  }
  const o = t.outcome;
  t.final =
    !o || status === 'cancelled'
      ? { ...base, status: 'cancelled' }
      : 'result' in o
        ? { ...base, status: 'completed', result: o.result }
        : { ...base, status: 'failed', error: o.error };
  return t.final;
}

function updateTranslated(s: RoutingSession, req: RpcRequest, t: HeldTask): Promise<void> {
  const responses = req.params?.inputResponses;
  if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) {
    return s.fail(req.id, {
      code: ErrorCode.InvalidParams,
      message: 'Invalid params: inputResponses must be an object',
    });
  }
  for (const [key, answer] of Object.entries(responses as Obj)) {
    const parked = t.inputs.get(key);
    if (!parked || typeof answer !== 'object' || answer === null) continue; // not outstanding: ignored, as the extension says
    t.inputs.delete(key);
    t.upstream.respond(parked.requestId, answer as Obj);
  }
  return s.reply(req.id, {});
}

async function cancelTranslated(table: HeldTaskTable, s: RoutingSession, req: RpcRequest, t: HeldTask): Promise<void> {
  if (t.final) return s.reply(req.id, {});
  const u = t.upstream;
  const res = await u.forward('tasks/cancel', { taskId: t.taskId }, { timeoutMs: u.entry.timeoutMs });
  if ('error' in res) {
    // A 2025 server refuses to cancel a terminal task; the extension acknowledges it.
    const check = await u.forward('tasks/get', { taskId: t.taskId }, { timeoutMs: u.entry.timeoutMs });
    if ('error' in check) return s.fail(req.id, res.error);
  }
  table.releaseInputs(t, { code: ErrorCode.InvalidRequest, message: 'the task was cancelled by its client' });
  return s.reply(req.id, {});
}

/**
 * A 2025 server's request tied to a translated task (`_meta` related-task): parked for the
 * client's `tasks/update`. False when it is not about such a task (routed as before).
 */
export function parkTaskInput(table: HeldTaskTable, u: Upstream, req: RpcRequest): boolean {
  const meta = req.params?._meta as Obj | undefined;
  const taskId = (meta?.[RELATED_TASK] as Obj | undefined)?.taskId;
  const t = typeof taskId === 'string' ? table.ofServer(u, taskId) : undefined;
  if (!t?.translated) return false;
  const { [RELATED_TASK]: _r, ...restMeta } = meta!;
  const { _meta: _m, ...params } = req.params!;
  const shown = Object.keys(restMeta).length > 0 ? { ...params, _meta: restMeta } : params;
  if (!table.park(t, req.method, shown, req.id))
    u.respondError(req.id, { code: ErrorCode.InternalError, message: `too many requests pending for task ${taskId}` });
  else if (t.watchers.size > 0 && t.last) emitStatus(t, { ...t.last, status: 'input_required' });
  return true;
}

/** A 2025 server's `notifications/tasks/status`: false when it is not about a 2026 client's task. */
export function heldTaskStatus(table: HeldTaskTable, u: Upstream, params: Obj): boolean {
  const t = table.ofServer(u, String(params.taskId));
  if (t) emitStatus(t, params);
  return t !== undefined;
}

/**
 * The server's `notifications/tasks/status` (or a parked request) for translated task `t`:
 * the DetailedTask, as `tasks/get` would answer it now, to every listen that asked for it.
 */
export function emitStatus(t: HeldTask, legacy: Obj, only?: (d: Obj) => void): void {
  t.last = legacy;
  if (t.watchers.size === 0 || !t.translated) return;
  void detailedTask(t, legacy, 0).then((d) => {
    if ('code' in d) return;
    if (only) only(d);
    else for (const w of t.watchers) w(d);
  });
}

/** Tells a new listen `watch` where translated task `t` is now (it may have changed before the listen came). */
export function currentStatus(t: HeldTask, watch: (d: Obj) => void): void {
  if (t.final) watch(t.final);
  else if (t.last) emitStatus(t, t.inputs.size > 0 ? { ...t.last, status: 'input_required' } : t.last, watch);
}

/** Whether `u` offers tasks for `tools/call` in either era (the extension, or 2025 `tasks.requests.tools.call`). */
export function offersTasks(u: Upstream): boolean {
  const c = u.capabilities;
  if ((c.extensions as Obj | undefined)?.[TASKS_EXTENSION]) return true;
  return !!((c.tasks as Obj | undefined)?.requests as { tools?: { call?: unknown } } | undefined)?.tools?.call;
}
