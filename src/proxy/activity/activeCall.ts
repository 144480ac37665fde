// src/proxy/activity/: what the runtime did with each request, kept in a bounded ring, a file and health figures.
/**
 * One request of a downstream session while it is handled: the few fields its record needs,
 * set as the session learns them (the server it went to, the tool a `call_tool` named, its
 * answer, its progress), cheap to fill. Values are never copied: the params are held by
 * reference and the result only for a server that captures, until the record is made
 * (activityLog.ts, which loads this file).
 */
import type { ActivityApp, ActivityOutcome } from '../../shared/activity.js';
import type { RequestId, RpcErrorObject } from '../jsonrpc/jsonRpc.js';
import { ErrorCode } from '../jsonrpc/jsonRpc.js';
import type { ActiveCall } from './activityRecorder.js';

export class Call implements ActiveCall {
  readonly at = Date.now();
  readonly startedNs = process.hrtime.bigint();
  server?: string;
  outcome: ActivityOutcome = 'ok';
  error?: RpcErrorObject;
  progress = 0;
  bytesIn?: number;
  bytesOut?: number;
  /** The result, kept only when its server captures (set by the session). */
  result?: Record<string, unknown>;
  /** A call of a tool with an MCP Apps view (apps/viewTap.ts). */
  app?: ActivityApp;
  /** The meta-tool it came through, and the tool that one named (`through`). */
  via?: string;
  private tool?: string;

  constructor(
    readonly id: RequestId,
    readonly session: number,
    public client: string | undefined,
    readonly method: string,
    readonly params: Record<string, unknown> | undefined,
  ) {}

  /** The request was answered with `error`: a timeout when the error says so. */
  failed(error: RpcErrorObject): void {
    if (this.outcome === 'denied' || this.outcome === 'cancelled') return;
    this.error = error;
    this.outcome = isTimeout(error) ? 'timeout' : 'error';
  }

  /** A policy refused the request; the error it is answered with stays `denied`. */
  denied(error: RpcErrorObject): void {
    this.error = error;
    this.outcome = 'denied';
  }

  /** Its client cancelled it: whatever came after is not its outcome. */
  cancelled(): void {
    this.outcome = 'cancelled';
    this.error = undefined;
  }

  /** It was answered with `result`: a tool's failure when the result says `isError`. */
  answered(result: Record<string, unknown>): void {
    if (result.isError === true && this.outcome === 'ok') this.outcome = 'tool-error';
  }

  /** It is a call of the tool `name` through the meta-tool `via` (`call_tool`). */
  through(via: string, name: string): void {
    this.via = via;
    this.tool = name;
  }

  /** The tool (the one a `call_tool` named) or prompt name, or the resource URI, as the client sent it. */
  get name(): string | undefined {
    if (this.tool !== undefined) return this.tool;
    const p = this.params;
    if (!p) return undefined;
    if (typeof p.name === 'string') return p.name;
    if (typeof p.uri === 'string') return p.uri;
    const ref = p.ref as { name?: unknown; uri?: unknown } | undefined;
    if (ref && typeof ref === 'object') return typeof ref.name === 'string' ? ref.name : String(ref.uri ?? '');
    return undefined;
  }

  /** Whether `name` is a resource URI (masked before it is recorded: it may carry credentials). */
  get namesUri(): boolean {
    const p = this.params;
    if (this.tool !== undefined || !p || typeof p.name === 'string') return false;
    if (typeof p.uri === 'string') return true;
    const ref = p.ref as { name?: unknown } | undefined;
    return !!ref && typeof ref === 'object' && typeof ref.name !== 'string';
  }
}

/** The proxy's own timeout (jsonRpcPeer.ts) or a server's, by code and wording. */
function isTimeout(error: RpcErrorObject): boolean {
  return error.code === ErrorCode.RequestTimeout && /timed? ?out/i.test(error.message);
}
