/**
 * What a session needs of the activity log (activityLog.ts, loaded apart): a call begun per
 * request, ended once. Types only, so a hub that does not record loads nothing of the log.
 */
import type { RequestId, RpcErrorObject } from '../jsonrpc/jsonRpc.js';

/** One request while it is handled; the session fills in what it learns (activeCall.ts). */
export interface ActiveCall {
  readonly id: RequestId;
  client: string | undefined;
  server?: string;
  progress: number;
  bytesIn?: number;
  bytesOut?: number;
  /** The result, kept only when its server captures. */
  result?: Record<string, unknown>;
  /** It was answered with `error` (a timeout when the error says so). */
  failed(error: RpcErrorObject): void;
  /** A policy refused it; the error it is answered with stays `denied`. */
  denied(error: RpcErrorObject): void;
  /** Its client cancelled it. */
  cancelled(): void;
}

export interface ActivityRecorder {
  begin(
    session: number,
    client: string | undefined,
    id: RequestId,
    method: string,
    params?: Record<string, unknown>,
  ): ActiveCall;
  end(call: ActiveCall): void;
  /** Whether `server`'s values are captured (its result is then kept on the call until it ends). */
  captures(server: string | undefined): boolean;
}
