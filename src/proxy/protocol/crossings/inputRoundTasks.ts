/**
 * A 2025-11-25 client and the tasks of a 2026-07-28 server (the `io.modelcontextprotocol/tasks`
 * extension), for routeRequest.ts and taskRequests.ts. The task is bound to the 2025 session
 * as any 2025 task is (taskTable.ts); what differs is the wire toward the server:
 * - a task-augmented `tools/call` goes without the `task` param (the extension has none) and
 *   with the extension declared in the envelope; a `CreateTaskResult` (`resultType: "task"`,
 *   flat) is answered as the 2025 one (`{ task }`, `ttl`, `pollInterval`); a plain result
 *   (the server chose not to make a task) passes as it is;
 * - `tasks/get` is the server's, the DetailedTask cut to a 2025 Task;
 * - `tasks/result` is emulated: the server's `tasks/get` polled (at its `pollIntervalMs`,
 *   50 ms to 5 s) until the task is terminal, bounded by the entry's `timeoutMs`; an
 *   `input_required` task's `inputRequests` are asked of the client as the 2025 server
 *   requests they are (on the `tasks/result` call's stream, as a 2025 server delivers them)
 *   and answered to the server with `tasks/update`; `completed` answers the inlined result
 *   (with the related-task `_meta`), `failed` its inlined error;
 * - `tasks/cancel` is the server's acknowledgement followed by its `tasks/get` (2025 answers
 *   the task);
 * - `tasks/list`, which the extension removed, is answered by the proxy: the session's own
 *   tasks on that server, each as the server's `tasks/get` shows it now (one page).
 */
import { ErrorCode, type RpcErrorObject, type RpcRequest, type RpcResponse } from '../../jsonrpc/jsonRpc.js';
import type { Upstream } from '../../upstream/upstream.js';
import type { HubSession, RoutingSession, SessionHost } from '../../hub/sessionContracts.js';
import { RELATED_TASK, type ServerTask } from '../../hub/tasks/taskTable.js';
import { task2025, taskEnvelope } from '../taskShapes.js';
import { answerInputRequests, isInputRequired, retryWithInput } from './inputRounds.js';

type Obj = Record<string, unknown>;

const MIN_POLL_MS = 50;
const MAX_POLL_MS = 5_000;
const DEFAULT_POLL_MS = 500;
/** Upper bound on the `tasks/get` polls of one emulated `tasks/result`. */
const MAX_POLLS = 20_000;
/** Upper bound on the tasks one emulated `tasks/list` page asks about. */
const MAX_LISTED = 100;

/** A 2025 session's task-augmented `tools/call` on 2026 server `u`. */
export function taskCallOn2026Server(
  s: RoutingSession,
  req: RpcRequest,
  u: Upstream,
  params: Obj,
  timeoutMs: number,
  created: (r: Obj) => Obj,
): Promise<void> {
  const { task: _task, ...plain } = params;
  return s.forward(req, u, { ...plain, _meta: taskEnvelope(u, plain._meta) }, timeoutMs, (r) => {
    if (r.resultType !== 'task' || typeof r.taskId !== 'string') return r;
    return created({ task: task2025(r.taskId, r) });
  });
}

function ask(u: Upstream, method: string, taskId: string, extra: Obj = {}): Promise<RpcResponse> {
  return u.forward(method, { ...extra, taskId, _meta: taskEnvelope(u, undefined) }, { timeoutMs: u.entry.timeoutMs });
}

/** `tasks/get`, `tasks/result` or `tasks/cancel` of a 2025 session for its task `route` on a 2026 server. */
export async function taskRequestOn2026Server(
  s: RoutingSession,
  req: RpcRequest,
  route: ServerTask<HubSession, Upstream>,
): Promise<void> {
  const u = route.upstream;
  if (req.method === 'tasks/result') return pollToEnd(s, req, u, route.taskId, route.exposed);
  if (req.method === 'tasks/cancel') {
    const ack = await ask(u, 'tasks/cancel', route.taskId);
    if ('error' in ack) return s.fail(req.id, ack.error);
  }
  const res = await ask(u, 'tasks/get', route.taskId);
  if ('error' in res) return s.fail(req.id, res.error);
  return s.reply(req.id, task2025(route.exposed, res.result));
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Answers `req` with the end of task `taskId` on `u`, polling its `tasks/get`; `exposed`: the
 * id the client knows (an emulated `tasks/result`: the result carries it in its related-task
 * `_meta`), undefined for a plain call the server made a task of (the client knows no task).
 */
async function pollToEnd(
  s: RoutingSession,
  req: RpcRequest,
  u: Upstream,
  taskId: string,
  exposed: string | undefined,
): Promise<void> {
  const limitMs = u.entry.timeoutMs || 60_000;
  const deadline = Date.now() + limitMs;
  const answered = new Set<string>();
  for (let i = 0; i < MAX_POLLS && Date.now() < deadline; i++) {
    const res = await ask(u, 'tasks/get', taskId);
    if ('error' in res) return s.fail(req.id, res.error);
    const t = res.result;
    if (t.status === 'completed') {
      const result = (t.result as Obj | undefined) ?? {};
      if (exposed === undefined) return s.reply(req.id, result);
      return s.reply(req.id, {
        ...result,
        _meta: { ...(result._meta as Obj | undefined), [RELATED_TASK]: { taskId: exposed } },
      });
    }
    if (t.status === 'failed') {
      const error = (t.error as RpcErrorObject | undefined) ?? {
        code: ErrorCode.InternalError,
        message: String(t.statusMessage ?? 'the task failed'),
      };
      return s.fail(req.id, error);
    }
    if (t.status === 'cancelled')
      return s.fail(req.id, { code: ErrorCode.InvalidRequest, message: `task ${exposed ?? taskId} was cancelled` });
    const pending = t.status === 'input_required' ? freshInputs(t.inputRequests, answered) : undefined;
    if (pending) {
      const next = await answerInputRequests(
        s,
        u.id,
        req.id,
        { inputRequests: exposed === undefined ? pending : withRelatedTask(pending, exposed) },
        0,
        Math.max(1, deadline - Date.now()),
      );
      if (!('inputResponses' in next)) return s.fail(req.id, next as RpcErrorObject);
      for (const k of Object.keys(pending)) answered.add(k);
      const ack = await ask(u, 'tasks/update', taskId, { inputResponses: next.inputResponses });
      if ('error' in ack) return s.fail(req.id, ack.error);
      continue;
    }
    const interval = typeof t.pollIntervalMs === 'number' ? t.pollIntervalMs : DEFAULT_POLL_MS;
    await sleep(Math.min(Math.max(interval, MIN_POLL_MS), MAX_POLL_MS, Math.max(1, deadline - Date.now())));
  }
  return s.fail(req.id, {
    code: ErrorCode.RequestTimeout,
    message: `task ${exposed ?? taskId} of server "${u.id}" did not end within ${limitMs} ms`,
  });
}

/** The input requests not answered yet, or undefined when there are none. */
function freshInputs(requests: unknown, answered: Set<string>): Obj | undefined {
  if (typeof requests !== 'object' || requests === null) return undefined;
  const out: Obj = {};
  for (const [k, v] of Object.entries(requests as Obj)) if (!answered.has(k)) out[k] = v;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Each input request with the related-task `_meta` a 2025 server puts on a task's requests. */
function withRelatedTask(requests: Obj, exposed: string): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(requests)) {
    const r = v as { method?: unknown; params?: Obj };
    out[k] = {
      ...r,
      params: { ...r.params, _meta: { ...(r.params?._meta as Obj | undefined), [RELATED_TASK]: { taskId: exposed } } },
    };
  }
  return out;
}

/**
 * What a 2026 server answered a 2025 session's request with, when it has a `resultType`
 * (DownstreamSession.forward): `input_required` asked of the client and the call re-issued
 * (protocol/crossings/inputRounds.ts); a task made of a plain call (the proxy declares the tasks extension to 2026
 * servers, as it can follow one: the server decides) followed to its end, the client getting
 * the final result as from a direct call; anything else as it is.
 */
export function answerRoundsOrTask(
  s: RoutingSession & Parameters<typeof retryWithInput>[0],
  req: RpcRequest,
  u: Upstream,
  params: Obj,
  result: Obj,
  timeoutMs: number,
  round: number,
  mapResult?: (r: Obj) => Obj,
): Promise<void> {
  if (isInputRequired(result)) return retryWithInput(s, req, u, params, result, timeoutMs, round);
  if (!mapResult && result.resultType === 'task' && typeof result.taskId === 'string')
    return pollToEnd(s, req, u, result.taskId, undefined);
  return s.reply(req.id, mapResult ? mapResult(result) : result);
}

/** A `tasks/list` page for session `s` on 2026 server `u`: its own tasks there, as they are now. */
export async function taskListOn2026Server(hub: SessionHost, s: RoutingSession, u: Upstream): Promise<Obj[]> {
  const own = hub.tasks.serverTasksOf(s, u).slice(-MAX_LISTED);
  const got = await Promise.all(
    own.map((route) =>
      ask(u, 'tasks/get', route.taskId).then((res) =>
        'result' in res ? task2025(route.exposed, res.result) : undefined,
      ),
    ),
  );
  return got.filter((t): t is Obj => t !== undefined);
}
