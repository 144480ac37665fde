/**
 * The proxy's side of a 2025-11-25 session (protocol/sessionCodec.ts): results and errors go
 * as they are, notifications only after `initialize`, task requests to the hub's task routes
 * (hub/tasks/taskRequests.ts). Where it meets a 2026-07-28 server it crosses
 * (crossings/inputRounds.ts, crossings/inputRoundTasks.ts). Before `initialize`, a request with
 * the 2026-07-28 envelope may choose that revision instead (codecChoice.ts). One object serves
 * every 2025 session: it holds nothing of a session's own.
 */
import { ErrorCode } from '../../jsonrpc/jsonRpc.js';
import type { SessionCodec } from '../sessionCodec.js';
import { routeTaskRequest } from '../../hub/tasks/taskRequests.js';
import { answerRoundsOrTask } from '../crossings/inputRoundTasks.js';
import { isRev2026Request } from '../rev2026-07-28/envelope.js';
import { takeFirst2026Request } from '../codecChoice.js';

export const SESSION_CODEC_2025: SessionCodec = {
  speaks2026: false,
  takesServerRequests: true,
  take: (hub, s, req) => (isRev2026Request(req) ? takeFirst2026Request(hub, s, req) : undefined),
  notifyUninitialized: () => undefined,
  listen: () => undefined,
  listChanged: () => undefined,
  cancelListen: () => false,
  closeListens: () => false,
  hold: () => undefined,
  // A request with a 2026 client's envelope (relayed by a proxy of ours: the stream link) gets the result as it is.
  crossResult: (s, req, u, params, result, timeoutMs, round, mapResult) =>
    isRev2026Request(req) ? undefined : answerRoundsOrTask(s, req, u, params, result, timeoutMs, round, mapResult),
  encodeResult: (_id, result) => result,
  encodeError: (_id, error) => error,
  routeTasks(hub, s, req) {
    if (req.method !== 'tasks/update') return routeTaskRequest(hub, s, req);
    return s.single
      ? s.forward(req, s.single, req.params ?? {})
      : s.fail(req.id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${req.method}` });
  },
};
