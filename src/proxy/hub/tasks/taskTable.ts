/**
 * The tasks (SEP-1686) that pass through the hub, and who owns each one.
 *
 * Server-side tasks (a session's task-augmented `tools/call`, the server being the
 * receiver): each is bound to the session that created it, which is the only one that may
 * see or touch it (`tasks/get|result|cancel` of another session's id, or of an id the proxy
 * never saw, is refused; `tasks/list` is filtered). In aggregate scope the id a session sees
 * is `<serverId>__<taskId>` (a counter suffix if two pairs meet at one string), reversible
 * through this table, as tool names are through naming.ts; in single scope it is the
 * server's own.
 *
 * Client-side tasks (a server's task-augmented sampling or elicitation, a session being the
 * receiver): each is bound to the session that created it and the upstream that asked; the
 * id the server sees is the session's own, with a `#<n>` suffix only when another session
 * already gave that upstream the same id.
 *
 * Both are bounded (oldest dropped first), and a session's entries go when it closes.
 */
import { NAME_SEPARATOR } from '../naming.js';

/** The `_meta` key that ties a message to a task. */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** What of an upstream this needs. */
interface Keyed {
  readonly id: string;
}

export interface ServerTask<S, U> {
  readonly upstream: U;
  /** The server's id. */
  readonly taskId: string;
  /** The id the session sees. */
  readonly exposed: string;
  readonly session: S;
}

export interface ClientTask<S, U> {
  readonly upstream: U;
  readonly session: S;
  /** The session's id. */
  readonly taskId: string;
  /** The id the upstream sees. */
  readonly visible: string;
}

/** Upper bound on the entries of each table (a client that never stops creating tasks). */
export const MAX_TASK_ROUTES = 10_000;
const MAX_HELD_TASKS = 64;
const MAX_HELD_PER_TASK = 8;

export class TaskTable<S, U extends Keyed> {
  /** `<upstream id>\0<server task id>` -> route. */
  private readonly server = new Map<string, ServerTask<S, U>>();
  /** Exposed id of an aggregate-scope task -> route. */
  private readonly exposed = new Map<string, ServerTask<S, U>>();
  /** `<upstream id>\0<visible id>` -> route. */
  private readonly client = new Map<string, ClientTask<S, U>>();
  /** Status notifications for tasks not yet bound (the server sent them before its CreateTaskResult). */
  private readonly held = new Map<string, Record<string, unknown>[]>();
  private collisions = 0;

  /** Keeps a status notification of a task nobody owns yet, for the session its CreateTaskResult will name. */
  holdStatus(u: U, taskId: string, params: Record<string, unknown>): void {
    const key = `${u.id}\0${taskId}`;
    const list = this.held.get(key);
    if (list) {
      if (list.length < MAX_HELD_PER_TASK) list.push(params);
    } else bounded(this.held, key, [params], MAX_HELD_TASKS);
  }

  /** The status notifications held for `taskId` on `u` (removed). */
  takeHeld(u: U, taskId: string): Record<string, unknown>[] {
    const key = `${u.id}\0${taskId}`;
    const list = this.held.get(key);
    if (list) this.held.delete(key);
    return list ?? [];
  }

  /** Records a task the server created for `session`; returns the id the session sees. */
  addServerTask(u: U, taskId: string, session: S, aggregate: boolean): string {
    let exposed = taskId;
    if (aggregate) {
      exposed = `${u.id}${NAME_SEPARATOR}${taskId}`;
      const taken = this.exposed.get(exposed);
      if (taken && (taken.upstream !== u || taken.taskId !== taskId)) exposed = `${exposed}#${++this.collisions}`;
    }
    const route: ServerTask<S, U> = { upstream: u, taskId, exposed, session };
    bounded(this.server, `${u.id}\0${taskId}`, route);
    if (aggregate) bounded(this.exposed, exposed, route);
    return exposed;
  }

  /** The task behind `id` as session `s` names it (single scope: on `single`), if it is its own. */
  ownTask(s: S, id: string, single: U | undefined): ServerTask<S, U> | undefined {
    const route = single ? this.server.get(`${single.id}\0${id}`) : this.exposed.get(id);
    return route?.session === s && (!single || route.exposed === id) ? route : undefined;
  }

  /** Who owns the server's task `taskId` on `u`. */
  serverTaskOwner(u: U, taskId: string): ServerTask<S, U> | undefined {
    return this.server.get(`${u.id}\0${taskId}`);
  }

  /** Session `s`'s server-side tasks on `u`, oldest first. */
  serverTasksOf(s: S, u: U): ServerTask<S, U>[] {
    return [...this.server.values()].filter((t) => t.session === s && t.upstream === u);
  }

  /** Records a task session `s` created for a request of `u`; returns the id `u` sees. */
  addClientTask(u: U, s: S, taskId: string): string {
    let visible = taskId;
    const taken = this.client.get(`${u.id}\0${visible}`);
    if (taken && taken.session !== s) visible = `${taskId}#${++this.collisions}`;
    bounded(this.client, `${u.id}\0${visible}`, { upstream: u, session: s, taskId, visible });
    return visible;
  }

  /** The session task behind the id `u` uses. */
  clientTask(u: U, visible: string): ClientTask<S, U> | undefined {
    return this.client.get(`${u.id}\0${visible}`);
  }

  /** Session `s`'s task `taskId`, for the upstream that asked for it. */
  clientTaskOf(s: S, taskId: string): ClientTask<S, U> | undefined {
    for (const t of this.client.values()) if (t.session === s && t.taskId === taskId) return t;
    return undefined;
  }

  /** The client-side tasks `u` has, grouped by session. */
  clientTasksOn(u: U): Map<S, ClientTask<S, U>[]> {
    const out = new Map<S, ClientTask<S, U>[]>();
    for (const t of this.client.values()) {
      if (t.upstream !== u) continue;
      const list = out.get(t.session);
      if (list) list.push(t);
      else out.set(t.session, [t]);
    }
    return out;
  }

  /**
   * Forgets a closed session's tasks. Its server-side tasks are not cancelled: a task is
   * durable and outlives its requestor's connection (the server's ttl ends it), but no other
   * session may reach it. Its client-side tasks are gone with it: the server's next
   * `tasks/get` for one is answered "not found".
   */
  dropSession(s: S): void {
    for (const [k, t] of this.server) if (t.session === s) this.server.delete(k);
    for (const [k, t] of this.exposed) if (t.session === s) this.exposed.delete(k);
    for (const [k, t] of this.client) if (t.session === s) this.client.delete(k);
  }
}

function bounded<V>(map: Map<string, V>, key: string, value: V, max = MAX_TASK_ROUTES): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value!);
}
