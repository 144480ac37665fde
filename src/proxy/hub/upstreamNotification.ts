/**
 * Where a notification from a server goes (for the Hub): progress to the request that asked
 * for it, a cancel to the server request it names, a task's status to the session that owns
 * the task (or the 2026 client's translated task: protocol/crossings/heldTasks.ts), a URL elicitation's completion
 * to the session that got it, a request-scoped notification of a 2026 server to that call's
 * session, `resources/updated` to the subscribed sessions, anything else to every session of
 * that server (related to its call in flight, if any).
 */
import type { RequestId, RpcNotification } from '../jsonrpc/jsonRpc.js';
import type { Upstream } from '../upstream/upstream.js';
import type { HubSession } from './sessionContracts.js';
import type { ProgressTable } from './progressTable.js';
import type { ServerRequestRouter } from './serverRequestRouter.js';
import type { SubscriptionTable } from './subscriptionTable.js';
import type { TaskTable } from './tasks/taskTable.js';
import type { HeldTaskTable } from '../protocol/crossings/heldTaskTable.js';
import { heldTaskStatus } from '../protocol/crossings/heldTasks.js';

/** The parts of the Hub this needs. */
export interface NotificationHost {
  readonly progress: ProgressTable<HubSession>;
  readonly serverRequests: ServerRequestRouter;
  readonly subscriptions: SubscriptionTable;
  readonly tasks: TaskTable<HubSession, Upstream>;
  readonly heldTasks: HeldTaskTable;
  sessionsFor(u: Upstream): HubSession[];
}

export function routeUpstreamNotification(
  hub: NotificationHost,
  u: Upstream,
  n: RpcNotification,
  related?: RequestId,
): void {
  const params = n.params ?? {};
  if (n.method === 'notifications/progress') {
    const route = hub.progress.get(u.id, params.progressToken);
    route?.touch();
    return route?.session.notify(n.method, { ...params, progressToken: route.token }, route.requestId);
  }
  if (n.method === 'notifications/cancelled') {
    hub.serverRequests.cancelled(u, params);
    return hub.heldTasks.withdraw(u, params.requestId);
  }
  if (n.method === 'notifications/tasks/status') {
    // Only the owning session hears of it; one sent before the CreateTaskResult waits for it.
    const task = hub.tasks.serverTaskOwner(u, String(params.taskId));
    if (task)
      task.session.notify(n.method, task.exposed === task.taskId ? params : { ...params, taskId: task.exposed });
    else if (!heldTaskStatus(hub.heldTasks, u, params)) hub.tasks.holdStatus(u, String(params.taskId), params); // a 2026 client's task: protocol/crossings/heldTasks.ts
    return;
  }
  if (n.method === 'notifications/elicitation/complete' && hub.serverRequests.elicitationComplete(u, params)) return;
  // A modern server's request-scoped notification (a log on a call's stream): to that call's session only.
  if (related !== undefined && n.method !== 'notifications/resources/updated') {
    for (const s of hub.sessionsFor(u)) {
      const id = s.callWithUpstreamId(u, related);
      if (id !== undefined) return s.notify(n.method, n.params, id);
    }
    return;
  }
  for (const s of hub.sessionsFor(u)) {
    if (n.method === 'notifications/resources/updated' && !hub.subscriptions.has(u, String(params.uri), s)) continue;
    s.notify(n.method, n.params, s.relatedCallOn(u));
  }
}
