// src/proxy/tracing/: OpenTelemetry traces of the requests a hub handles, loaded only when on.
/**
 * The tracer a hub hands its sessions when tracing is on (hub.ts `tracingUrl`): a SERVER span per
 * request a session receives, its parent the `traceparent` the client put in `params._meta`,
 * and a CLIENT span per request it sends a server on that request's behalf, whose context goes
 * into the server's `params._meta`; so one trace crosses agent -> runtime (-> bridge) -> server.
 * It wraps the activity log when that is on too: one call object serves both. Spans go in
 * batches to an OTLP/HTTP collector (spanExport.ts). Its own start file, with the SDK.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { ErrorCode, type RequestId, type RpcErrorObject, type RpcResponse } from '../jsonrpc/jsonRpc.js';
import type { Logger } from '../common/logger.js';
import type { ActivityOutcome } from '../../shared/activity.js';
import type { ActiveCall, ActivityRecorder, CalledServer, CallingSession } from '../activity/activityRecorder.js';
import { recordedUri } from '../activity/recordedUri.js';
import { contextFromMeta, withContextInMeta } from './traceContext.js';
import { failedSpan, requestSpan, serverAttributes, throughSpan, toolErrorSpan } from './mcpSpans.js';
import { openSpanExport, type SpanExport } from './spanExport.js';

/** Where a 2026-07-28 request names its protocol version. */
const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

export interface TracerOptions {
  /** The exporter's URL; `''`: the one the OTEL_* variables name. */
  url: string;
  logger: Logger;
  /** Sessions reach this hub over TCP (the bridge); else over a pipe (stdio). */
  tcp?: boolean;
  /** The activity log, when it is on too: every call is also recorded there. */
  inner?: ActivityRecorder;
}

/** The hub's recorder while tracing is on; `close` flushes the spans still queued. */
export interface RequestTracer extends ActivityRecorder {
  close(): Promise<void>;
}

export function openTracer(opts: TracerOptions): RequestTracer {
  return new Tracing(opts, openSpanExport(opts.url, opts.logger));
}

class Tracing implements RequestTracer {
  private readonly tracer: Tracer;
  /** The protocol version each session's `initialize` was answered with. */
  private readonly versions = new WeakMap<CallingSession, string>();
  /** A resource URI as the spans show it: masked as the activity log's record. */
  private readonly maskUri = (uri: string): string => recordedUri(this.opts.logger.secrets, uri);

  constructor(
    private readonly opts: TracerOptions,
    private readonly spans: SpanExport,
  ) {
    this.tracer = spans.tracer;
  }

  captures(server: string | undefined): boolean {
    return this.opts.inner?.captures(server) ?? false;
  }

  begin(
    session: number,
    client: string | undefined,
    id: RequestId,
    method: string,
    params?: Record<string, unknown>,
    via?: CallingSession,
  ): ActiveCall {
    const inner = this.opts.inner?.begin(session, client, id, method, params, via);
    const [name, attributes] = requestSpan(method, params, this.maskUri);
    attributes['jsonrpc.request.id'] = String(id);
    attributes['network.transport'] = this.opts.tcp ? 'tcp' : 'pipe';
    const sessionId = via?.peer.transport.sessionId;
    if (sessionId !== undefined) attributes['mcp.session.id'] = sessionId;
    const version =
      (params?._meta as Record<string, unknown> | undefined)?.[META_PROTOCOL_VERSION] ??
      (via && this.versions.get(via));
    if (typeof version === 'string') attributes['mcp.protocol.version'] = version;
    const parent = contextFromMeta(params);
    const ctx = parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
    const span = this.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, ctx);
    const onInit = method === 'initialize' && via ? (v: string) => this.versions.set(via, v) : undefined;
    return new TracedCall(id, client, span, this.tracer, this.opts.logger, this.maskUri, inner, onInit);
  }

  end(active: ActiveCall): void {
    const call = active as TracedCall;
    if (call.inner) this.opts.inner!.end(call.synced());
    call.finish();
  }

  /** Flushes the spans still queued, within its deadline (spanExport.ts); never throws. */
  close(): Promise<void> {
    return this.spans.close();
  }
}

/** One request's SERVER span, and the fields the activity log reads, handed to its record at the end. */
class TracedCall implements ActiveCall {
  server?: string;
  progress = 0;
  bytesIn?: number;
  bytesOut?: number;
  result?: Record<string, unknown>;
  private error?: RpcErrorObject;
  private outcome: ActivityOutcome = 'ok';

  constructor(
    readonly id: RequestId,
    public client: string | undefined,
    private readonly span: Span,
    private readonly tracer: Tracer,
    private readonly logger: Logger,
    private readonly maskUri: (uri: string) => string,
    readonly inner: ActiveCall | undefined,
    /** For an `initialize`: keeps the version it is answered with, for the session's later spans. */
    private readonly onInit?: (version: string) => void,
  ) {}

  failed(error: RpcErrorObject): void {
    this.inner?.failed(error);
    if (this.outcome === 'denied' || this.outcome === 'cancelled') return;
    this.error = error;
    // As the activity log tells a timeout: the proxy's own (jsonRpcPeer.ts) or a server's, by code and wording.
    this.outcome = error.code === ErrorCode.RequestTimeout && /timed? ?out/i.test(error.message) ? 'timeout' : 'error';
  }

  denied(error: RpcErrorObject): void {
    this.inner?.denied(error);
    this.error = error;
    this.outcome = 'denied';
  }

  cancelled(): void {
    this.inner?.cancelled();
    this.error = undefined;
    this.outcome = 'cancelled';
  }

  answered(result: Record<string, unknown>): void {
    this.inner?.answered(result);
    if (result.isError === true && this.outcome === 'ok') this.outcome = 'tool-error';
    if (this.onInit && typeof result.protocolVersion === 'string') {
      this.onInit(result.protocolVersion);
      this.span.setAttribute('mcp.protocol.version', result.protocolVersion);
    }
  }

  through(via: string, name: string): void {
    this.inner?.through(via, name);
    throughSpan(this.span, via, name);
  }

  toServer(
    server: CalledServer,
    method: string,
    params: Record<string, unknown>,
  ): { params: Record<string, unknown>; done(response: RpcResponse, id?: RequestId): void } {
    const [name, attributes] = requestSpan(method, params, this.maskUri);
    Object.assign(attributes, serverAttributes(server.transportKind, server.entry.url));
    attributes['qiming.server.id'] = server.id;
    const version = server.initResult?.protocolVersion;
    if (typeof version === 'string') attributes['mcp.protocol.version'] = version;
    const ctx = trace.setSpan(ROOT_CONTEXT, this.span);
    const span = this.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, ctx);
    return {
      params: withContextInMeta(params, span.spanContext()),
      done: (response, id) => {
        if (id !== undefined) span.setAttribute('jsonrpc.request.id', String(id));
        if ('error' in response)
          failedSpan(span, response.error, this.logger.secrets.mask(String(response.error.message)));
        else if (response.result.isError === true) toolErrorSpan(span);
        span.end();
      },
    };
  }

  /** The inner record's call, with what the session set here. */
  synced(): ActiveCall {
    const c = this.inner!;
    c.client = this.client;
    c.progress = this.progress;
    if (this.server !== undefined) c.server = this.server;
    if (this.bytesIn !== undefined) c.bytesIn = this.bytesIn;
    if (this.bytesOut !== undefined) c.bytesOut = this.bytesOut;
    if (this.result !== undefined) c.result = this.result;
    return c;
  }

  /** Ends the SERVER span with the request's outcome. */
  finish(): void {
    const span = this.span;
    if (this.server !== undefined) span.setAttribute('qiming.server.id', this.server);
    span.setAttribute('qiming.outcome', this.outcome);
    if (this.outcome === 'cancelled') {
      span.setAttribute('error.type', 'cancelled');
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'cancelled by the client' });
    } else if (this.error) failedSpan(span, this.error, this.logger.secrets.mask(String(this.error.message)));
    else if (this.outcome === 'tool-error') toolErrorSpan(span);
    span.end();
  }
}
