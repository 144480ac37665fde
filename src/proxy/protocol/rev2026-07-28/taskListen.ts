/**
 * `notifications.taskIds` of a 2026-07-28 client's `subscriptions/listen` (the tasks
 * extension): for each id that names a task the proxy translates for a 2025 server
 * (protocol/crossings/heldTasks.ts) in the session's scope, the listen gets `notifications/tasks` with the full
 * DetailedTask whenever the server reports a status (`notifications/tasks/status`) or a request
 * of the task is parked; the acknowledgement lists those ids. A 2026 server's own task ids
 * are not honoured: the proxy's listen toward that server carries list changes only. A client
 * asking for task ids without declaring the extension gets -32021, as the extension says.
 */
import { ErrorCode, type RpcErrorObject, type RpcRequest } from '../../jsonrpc/jsonRpc.js';
import type { RoutingSession, SessionHost } from '../../hub/sessionContracts.js';
import { currentStatus, declaresTasks } from '../crossings/heldTasks.js';
import { TASKS_EXTENSION } from '../taskShapes.js';

type Obj = Record<string, unknown>;

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

export interface TaskListen {
  error?: RpcErrorObject;
  /** What to add to the acknowledgement's `notifications`. */
  ack: Obj;
  stop(): void;
}

const NONE: TaskListen = { ack: {}, stop: () => undefined };

/** The task part of listen `req` of session `s`; `send` writes one `notifications/tasks`. */
export function listenTasks(
  hub: SessionHost,
  s: RoutingSession,
  req: RpcRequest,
  send: (params: Obj) => void,
): TaskListen {
  const asked = (req.params?.notifications as Obj | undefined)?.taskIds;
  if (!Array.isArray(asked)) return NONE;
  if (!declaresTasks(req)) {
    return {
      ...NONE,
      error: {
        code: ErrorCode.MissingRequiredClientCapability,
        message: `Missing required client capability: task notifications need the ${TASKS_EXTENSION} extension`,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      },
    };
  }
  const scope = hub.inScope(s.scope);
  const watch = (d: Obj) => send({ ...d, _meta: { ...(d._meta as Obj | undefined), [SUBSCRIPTION_ID]: req.id } });
  const tasks = asked
    .map((id) => (typeof id === 'string' ? hub.heldTasks.get(id) : undefined))
    .filter((t) => t !== undefined && t.translated && scope.includes(t.upstream));
  for (const t of tasks) {
    t!.watchers.add(watch);
    setImmediate(() => t!.watchers.has(watch) && currentStatus(t!, watch)); // after the acknowledgement
  }
  return { ack: { taskIds: tasks.map((t) => t!.id) }, stop: () => tasks.forEach((t) => t!.watchers.delete(watch)) };
}
