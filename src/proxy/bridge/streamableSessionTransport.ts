/**
 * One streamable HTTP session's SDK `Transport`, written straight onto Node responses
 * (no Web `Request`/`Response` adapter, no zod: the endpoint checks the JSON-RPC shape).
 *
 * Each POST carrying requests is an exchange: its request ids map to its HTTP response.
 * While nothing but final answers goes out, the exchange answers `application/json` with
 * one `res.end(body)` and a Content-Length (a batch gets an array, once every answer is
 * in). When a message related to one of its requests must go out before the answer
 * (progress, a request-scoped log, a sampling/elicitation/roots request), or when the
 * answer takes longer than the keep-alive interval, the response switches to
 * `text/event-stream`: headers once, one `event: message` per message, keep-alive
 * comments, and the stream ends after the last answer.
 *
 * Messages with no related request go to the session's GET stream (at most one). With no
 * GET stream open, a notification is dropped (the SDK transport without an event store
 * does the same; `list_changed` is a hint the client re-reads on reconnect) and a
 * server-to-client request fails at once, so nothing waits for an answer that cannot come.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { isRequest, isResponse } from '../jsonrpc/jsonRpc.js';
import { SSE_HEADERS, startKeepAlive } from './eventStream.js';
import { noteWireBytes } from '../common/wireBytes.js';

type Wire = Record<string, unknown>;

/** The responses of one POST that carried requests. */
class Exchange {
  /** The request ids, in body order (a batch answers in that order). */
  readonly ids: RequestId[] = [];
  readonly answers = new Map<RequestId, Wire>();
  streaming = false;
  done = false;
  stopKeepAlive: () => void = () => {};
  timer: NodeJS.Timeout | undefined;

  constructor(
    readonly res: ServerResponse,
    readonly batch: boolean,
  ) {}
}

export interface StreamableSessionTransportOptions {
  sessionId: string;
  /** Keep-alive interval of SSE responses; also how long a JSON answer may take before the
   *  response switches to SSE so keep-alives can flow. `<= 0` disables both. */
  keepAliveMs: number;
}

/** The per-session transport of `/mcp/<id>` and `/mcp` (see the file comment). */
export class StreamableSessionTransport implements Transport {
  readonly sessionId: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private readonly byRequest = new Map<RequestId, Exchange>();
  private standalone: ServerResponse | undefined;
  private stopStandaloneKeepAlive: () => void = () => {};
  private closed = false;
  private readonly keepAliveMs: number;

  constructor(opts: StreamableSessionTransportOptions) {
    this.sessionId = opts.sessionId;
    this.keepAliveMs = opts.keepAliveMs;
  }

  async start(): Promise<void> {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether a GET stream is open (a second one gets 409). */
  get hasStandaloneStream(): boolean {
    return this.standalone !== undefined;
  }

  /**
   * Delivers the already validated messages of a POST. With no request among them the
   * POST is answered 202 first; otherwise the response waits for the answers.
   */
  handlePost(req: IncomingMessage, res: ServerResponse, messages: Wire[], batch: boolean): void {
    const extra: MessageExtraInfo = { requestInfo: { headers: req.headers } };
    // One message's size is its body's, as Node read it to its Content-Length (the activity log's bytes in).
    const length = Number(req.headers['content-length']);
    if (!batch && messages.length === 1 && length > 0) noteWireBytes(messages[0]!, length);
    const requests = messages.filter(isRequest);
    if (requests.length === 0) {
      res.writeHead(202, { 'mcp-session-id': this.sessionId });
      res.end();
      for (const m of messages) this.onmessage?.(m as JSONRPCMessage, extra);
      return;
    }
    const ex = new Exchange(res, batch);
    for (const r of requests) {
      const id = r.id as RequestId;
      // A repeated id in one batch is answered once (the answer map is keyed by id).
      if (this.byRequest.get(id) !== ex) ex.ids.push(id);
      this.byRequest.set(id, ex);
    }
    res.once('close', () => this.forget(ex));
    if (this.keepAliveMs > 0 && Number.isFinite(this.keepAliveMs)) {
      // A JSON answer sends no bytes until it is complete; a long call switches to SSE so
      // keep-alives reach the client before its own header timeout does.
      ex.timer = setTimeout(() => this.openStream(ex, true), this.keepAliveMs);
      ex.timer.unref();
    }
    for (const m of messages) this.onmessage?.(m as JSONRPCMessage, extra);
  }

  /** `GET`: opens the session's standalone SSE stream. The caller checked there is none. */
  openStandalone(res: ServerResponse): void {
    this.standalone = res;
    res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.sessionId });
    res.flushHeaders();
    this.stopStandaloneKeepAlive = startKeepAlive(res, this.keepAliveMs);
    res.once('close', () => {
      if (this.standalone === res) this.standalone = undefined;
    });
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as unknown as Wire;
    if (this.closed) {
      // Late notifications and answers have no reader; only a request must fail.
      if (isRequest(m)) throw new Error('session closed');
      return;
    }
    const response = isResponse(m);
    const related = response ? (m.id as RequestId) : options?.relatedRequestId;
    if (related === undefined) {
      this.sendUnrelated(m, response);
      return;
    }
    const ex = this.byRequest.get(related);
    if (!ex) {
      // The request's HTTP response is gone (client disconnected or already answered).
      if (isRequest(m)) throw new Error(`no open response for request ${String(related)}`);
      return;
    }
    if (!response) {
      // The headers go out in the same write as this first event.
      this.openStream(ex, false);
      this.writeEvent(ex.res, m);
      return;
    }
    ex.answers.set(related, m);
    this.byRequest.delete(related);
    if (ex.streaming) this.writeEvent(ex.res, m);
    if (ex.answers.size === ex.ids.length) this.finish(ex);
  }

  /** Ends the session: open responses end, then `onclose`. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const open = new Set(this.byRequest.values());
    this.byRequest.clear();
    for (const ex of open) {
      // Unanswered requests: an empty event stream ends them, as the SDK transport did.
      this.openStream(ex, false);
      this.forget(ex);
      if (!ex.res.writableEnded) ex.res.end();
    }
    this.stopStandaloneKeepAlive();
    if (this.standalone && !this.standalone.writableEnded) this.standalone.end();
    this.standalone = undefined;
    this.onclose?.();
  }

  private sendUnrelated(m: Wire, response: boolean): void {
    if (response) throw new Error('a response needs the request it answers');
    const res = this.standalone;
    if (res && !res.writableEnded && !res.destroyed) {
      this.writeEvent(res, m);
      return;
    }
    if (isRequest(m)) throw new Error('no GET stream open for a server-to-client request');
  }

  /** Switches an exchange to SSE (once): headers, answers held so far, keep-alives. */
  private openStream(ex: Exchange, flush: boolean): void {
    clearTimeout(ex.timer);
    if (ex.streaming || ex.done || ex.res.headersSent || ex.res.destroyed) return;
    ex.streaming = true;
    ex.res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.sessionId });
    if (flush && ex.answers.size === 0) ex.res.flushHeaders();
    for (const a of ex.answers.values()) this.writeEvent(ex.res, a);
    ex.stopKeepAlive = startKeepAlive(ex.res, this.keepAliveMs);
  }

  private finish(ex: Exchange): void {
    ex.done = true;
    clearTimeout(ex.timer);
    ex.stopKeepAlive();
    const res = ex.res;
    if (res.writableEnded || res.destroyed) return;
    if (ex.streaming) {
      res.end();
      return;
    }
    const one = ex.batch ? undefined : ex.answers.get(ex.ids[0]);
    const body = one ? JSON.stringify(one) : JSON.stringify(ex.ids.map((id) => ex.answers.get(id)));
    if (one) noteWireBytes(one, Buffer.byteLength(body));
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'mcp-session-id': this.sessionId,
    });
    res.end(body);
  }

  /** Drops an exchange's request ids (its response closed or the session ended). */
  private forget(ex: Exchange): void {
    clearTimeout(ex.timer);
    ex.stopKeepAlive();
    for (const id of ex.ids) if (this.byRequest.get(id) === ex) this.byRequest.delete(id);
  }

  private writeEvent(res: ServerResponse, m: Wire): void {
    if (res.writableEnded || res.destroyed) return;
    const event = `event: message\ndata: ${JSON.stringify(m)}\n\n`;
    noteWireBytes(m, Buffer.byteLength(event));
    res.write(event);
  }
}
