/**
 * The tasks that cross the eras (protocol/crossings/heldTasks.ts): a task a 2026-07-28 client got through the
 * proxy (`io.modelcontextprotocol/tasks` extension), whether a 2025-11-25 server runs it
 * (translated) or a 2026 server does (passed through in aggregate scope, where its id names
 * the server).
 *
 * 2026-07-28 has no sessions: a stateless HTTP request is a session of its own, so such a
 * task cannot be bound to the session that created it as taskTable.ts binds 2025 tasks. The
 * extension lets a server use task ids as bearer tokens ("MUST generate them with sufficient
 * entropy"), so the proxy does that for a translated task: the id the client sees is 128
 * random bits, reversible only through this table. A passed-through task keeps the server's
 * own id (prefixed with the server id in aggregate scope), which the server generated as such
 * a token.
 *
 * A translated task also carries what the 2025 flow delivers outside `tasks/get`: the final
 * result (from the server's `tasks/result`, kept once terminal) and the server's requests
 * tied to the task (elicitation, sampling, roots), parked here under a key until the client
 * answers them with `tasks/update`. Bounded: MAX_ERA_TASKS entries, oldest dropped (its
 * parked requests answered with an error).
 */
import { ErrorCode, type RequestId, type RpcErrorObject } from '../../jsonrpc/jsonRpc.js';
import type { Upstream } from '../../upstream/upstream.js';
import { NAME_SEPARATOR } from '../../hub/naming.js';
import { randomKey } from '../../common/randomKeys.js';

export const MAX_ERA_TASKS = 10_000;
/** Parked server requests per task (a server that keeps asking without an answer). */
const MAX_INPUTS_PER_TASK = 16;

type Obj = Record<string, unknown>;

/** A server request waiting for the client's `tasks/update`. */
export interface ParkedInput {
  readonly method: string;
  readonly params: Obj;
  /** The server's request id. */
  readonly requestId: RequestId;
}

export interface HeldTask {
  /** The id the 2026 client uses. */
  readonly id: string;
  readonly upstream: Upstream;
  /** The server's id. */
  readonly taskId: string;
  /** A 2025-11-25 server runs it (translated); false: a 2026 server (passed through). */
  readonly translated: boolean;
  /** The final state, as `tasks/get` answers it, once terminal (translated tasks). */
  final?: Obj;
  /** The server's `tasks/result` answer, once it came. */
  outcome?: { result: Obj } | { error: RpcErrorObject };
  /** The `tasks/result` call in flight, if any. */
  fetching?: Promise<void>;
  readonly inputs: Map<string, ParkedInput>;
  keys: number;
  /** Called once each when something the client would see changed (an input parked, an outcome). */
  readonly waiters: Set<() => void>;
  /** `subscriptions/listen` streams that asked for this task (protocol/rev2026-07-28/taskListen.ts): each gets the DetailedTask. */
  readonly watchers: Set<(detailed: Obj) => void>;
  /** The server's last status notification (a 2025 Task). */
  last?: Obj;
}

/** Wakes the waiters of `t`. */
export function touched(t: HeldTask): void {
  const waiters = [...t.waiters];
  t.waiters.clear();
  for (const w of waiters) w();
}

function fresh(): Pick<HeldTask, 'inputs' | 'keys' | 'waiters' | 'watchers'> {
  return { inputs: new Map(), keys: 0, waiters: new Set(), watchers: new Set() };
}

export class HeldTaskTable {
  private readonly byId = new Map<string, HeldTask>();
  /** `<upstream id>\0<server task id>` -> task. */
  private readonly byServer = new Map<string, HeldTask>();

  /** A translated task: a fresh unguessable id. */
  addTranslated(u: Upstream, taskId: string): HeldTask {
    return this.add({
      id: randomKey(16),
      upstream: u,
      taskId,
      translated: true,
      ...fresh(),
    });
  }

  /** A 2026 server's task seen in aggregate scope: `<serverId>__<taskId>`. */
  addPassed(u: Upstream, taskId: string): HeldTask {
    const known = this.byServer.get(`${u.id}\0${taskId}`);
    if (known) return known;
    return this.add({ id: `${u.id}${NAME_SEPARATOR}${taskId}`, upstream: u, taskId, translated: false, ...fresh() });
  }

  get(id: string): HeldTask | undefined {
    return this.byId.get(id);
  }

  /** The translated task behind the server's id `taskId` on `u`. */
  ofServer(u: Upstream, taskId: string): HeldTask | undefined {
    return this.byServer.get(`${u.id}\0${taskId}`);
  }

  /** Parks a server request of task `t`; false when the task has too many already. */
  park(t: HeldTask, method: string, params: Obj, requestId: RequestId): boolean {
    if (t.inputs.size >= MAX_INPUTS_PER_TASK) return false;
    t.inputs.set(`input-${++t.keys}`, { method, params, requestId });
    touched(t);
    return true;
  }

  /** Answers every parked request of `t` with `error` (the task ended or was dropped). */
  releaseInputs(t: HeldTask, error: RpcErrorObject): void {
    for (const p of t.inputs.values()) t.upstream.respondError(p.requestId, error);
    t.inputs.clear();
  }

  /** The server withdrew its request `requestId` (notifications/cancelled). */
  withdraw(u: Upstream, requestId: unknown): void {
    for (const t of this.byId.values()) {
      if (t.upstream !== u) continue;
      for (const [k, p] of t.inputs) if (p.requestId === requestId) t.inputs.delete(k);
    }
  }

  private add(t: HeldTask): HeldTask {
    this.byId.set(t.id, t);
    this.byServer.set(`${t.upstream.id}\0${t.taskId}`, t);
    if (this.byId.size > MAX_ERA_TASKS) {
      const oldest = this.byId.values().next().value!;
      this.byId.delete(oldest.id);
      this.byServer.delete(`${oldest.upstream.id}\0${oldest.taskId}`);
      this.releaseInputs(oldest, {
        code: ErrorCode.InternalError,
        message: 'task dropped by the proxy (too many tasks)',
      });
    }
    return t;
  }
}
