/**
 * What a session needs of the activity log (activityLog.ts) and of the tracer
 * (tracing/requestTracer.ts), each loaded apart: a call begun per request, ended once. Types
 * only, so a hub that neither records nor traces loads nothing of them.
 */
import type { RequestId, RpcErrorObject, RpcResponse } from '../jsonrpc/jsonRpc.js';
import type { ActivityApp } from '../../shared/activity.js';

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
  /** A call of a tool with an MCP Apps view (apps/viewTap.ts). */
  app?: ActivityApp;
  /** It was answered with `error` (a timeout when the error says so). */
  failed(error: RpcErrorObject): void;
  /** A policy refused it; the error it is answered with stays `denied`. */
  denied(error: RpcErrorObject): void;
  /** Its client cancelled it. */
  cancelled(): void;
  /** The result it is answered with, whether or not its server captures (`isError`: a tool's failure). */
  answered(result: Record<string, unknown>): void;
  /** It calls the tool `name` through the meta-tool `via` (`call_tool`): recorded and traced as that tool's call. */
  through(via: string, name: string): void;
  /**
   * Tracing: it goes to `server` as `method` with `params`; what to send instead (its trace
   * context in `_meta`), and what to tell of the answer (`id`: the request's id toward the server).
   */
  toServer?(
    server: CalledServer,
    method: string,
    params: Record<string, unknown>,
  ): { params: Record<string, unknown>; done(response: RpcResponse, id?: RequestId): void };
}

/** What a trace tells of the session a request came in on (a DownstreamSession). */
export interface CallingSession {
  readonly peer: { readonly transport: { readonly sessionId?: string } };
}

/** What a trace tells of the server a request went to (an Upstream). */
export interface CalledServer {
  readonly id: string;
  readonly transportKind: 'stdio' | 'http' | 'sse';
  readonly entry: { readonly kind: string; readonly url?: string; readonly type?: string };
  readonly initResult?: Record<string, unknown>;
}

export interface ActivityRecorder {
  begin(
    session: number,
    client: string | undefined,
    id: RequestId,
    method: string,
    params?: Record<string, unknown>,
    via?: CallingSession,
  ): ActiveCall;
  end(call: ActiveCall): void;
  /** Whether `server`'s values are captured (its result is then kept on the call until it ends). */
  captures(server: string | undefined): boolean;
}
