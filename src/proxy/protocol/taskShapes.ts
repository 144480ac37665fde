/**
 * The two task shapes side by side: a 2025-11-25 Task (SEP-1686: `ttl`, `pollInterval`, a
 * `CreateTaskResult` wrapping it in `task`, the result fetched with `tasks/result`) and a
 * 2026-07-28 extension task (SEP-2663: flat, `ttlMs`, `pollIntervalMs`, `resultType: "task"`
 * on creation, the result or error inlined in `tasks/get`), and the envelope the proxy puts on
 * the task requests it sends a 2026 server for a 2025 client.
 */
import { CLIENT_INFO, type Upstream } from '../upstream/upstream.js';
import { declaredCapabilities } from '../config/clientCapabilities.js';
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  REV2026_PROTOCOL_VERSION,
  TASKS_EXTENSION,
} from './rev2026-07-28/vocabulary.js';
import { RELATED_TASK } from '../hub/tasks/taskTable.js';

export { TASKS_EXTENSION };

type Obj = Record<string, unknown>;

/** `r` without the related-task `_meta` (it names the server's task id). */
export function withoutRelatedTask(r: Obj): Obj {
  const meta = r._meta as Obj | undefined;
  if (!meta || !(RELATED_TASK in meta)) return r;
  const { [RELATED_TASK]: _r, ...rest } = meta;
  const { _meta: _m, ...out } = r;
  return Object.keys(rest).length > 0 ? { ...out, _meta: rest } : out;
}

/** A 2025 Task as a 2026 extension task under the id `id` (status and payload fields left to the caller). */
export function task2026(id: string, legacy: Obj): Obj {
  const { taskId: _id, ttl, pollInterval, ...rest } = withoutRelatedTask(legacy);
  return {
    ...rest,
    taskId: id,
    ttlMs: typeof ttl === 'number' ? ttl : null,
    ...(typeof pollInterval === 'number' ? { pollIntervalMs: pollInterval } : {}),
  };
}

/** A 2026 extension task (a CreateTaskResult or DetailedTask) as a 2025 Task under the id `id`. */
export function task2025(id: string, modern: Obj): Obj {
  const {
    taskId: _id,
    ttlMs,
    pollIntervalMs,
    resultType: _rt,
    result: _r,
    error: _e,
    inputRequests: _i,
    _meta: _m,
    ...rest
  } = modern;
  return {
    ...rest,
    taskId: id,
    ttl: typeof ttlMs === 'number' ? ttlMs : null,
    ...(typeof pollIntervalMs === 'number' ? { pollInterval: pollIntervalMs } : {}),
  };
}

/**
 * The envelope of a 2025 client's task traffic toward 2026 server `u`: what the proxy
 * declares to that server (the entry's clientCapabilities) plus the tasks extension, which a
 * 2026 server requires on `tasks/*` and before it returns a task.
 */
export function taskEnvelope(u: Upstream, meta: unknown): Obj {
  return {
    ...(meta as Obj | undefined),
    [META_PROTOCOL_VERSION]: REV2026_PROTOCOL_VERSION,
    [META_CLIENT_INFO]: CLIENT_INFO,
    [META_CLIENT_CAPABILITIES]: {
      ...declaredCapabilities(u.entry.clientCapabilities),
      extensions: { [TASKS_EXTENSION]: {} },
    },
  };
}
