/**
 * LeanHttpClientTransport: a streamable-HTTP MCP client transport on `node:http`/`node:https`
 * with one keep-alive Agent, used for remote upstreams instead of the SDK's
 * `StreamableHTTPClientTransport`. The SDK client goes through undici `fetch`, Web streams
 * and an AbortSignal per request, which cost about 3.4 ms of CPU per call in the stdio proxy
 * (docs/BENCHMARKS.md); this one POSTs each message, parses a JSON reply once, and reads an
 * event-stream reply with a small line parser. It checks only the JSON-RPC shape.
 *
 * Failures are reported, never retried here: the ResilientTransportWrapper around it decides
 * (reconnect, replay `initialize`). A 404 on a request that carried a session id means the
 * server forgot the session; it rejects the send and raises onerror like any transport error.
 */
import http from 'node:http';
import type https from 'node:https';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorText, type Logger } from '../common/logger.js';
import { SseParser } from '../../shared/sseParser.js';
import { HoldGate } from './holdGate.js';
import type { RelatedExtra } from '../jsonrpc/jsonRpcPeer.js';
import { isRequest, methodOf } from '../jsonrpc/jsonRpc.js';
import { describeConnectError, httpStatusError, isAuthRefusal } from './upstreamErrors.js';
import type { RequestAuth } from '../oauth/oauthSettings.js';
import { authedSend } from './authedSend.js';
import { redactUrl } from '../config/redact.js';
import { readText } from './readText.js';

export interface LeanHttpClientOptions {
  /** Sent with every request (for example Authorization). */
  headers?: Record<string, string>;
  logger?: Logger;
  /** How long messages after `initialized` wait for the GET stream's answer (default 2 s). */
  getStreamWaitMs?: number;
  /** The server's sign-in (src/proxy/oauth): its header on every request, its say on a 401/403. */
  auth?: RequestAuth;
}

export { HttpStatusError } from './upstreamErrors.js';
export { readText } from './readText.js';

const MAX_SOCKETS = 64;
/** Below Node's default server keepAliveTimeout (5 s), so our side closes an idle socket first. */
const IDLE_SOCKET_MS = 4_000;
const DELETE_TIMEOUT_MS = 1_000;
const ERROR_BODY_LIMIT = 2_000;
const GET_STREAM_WAIT_MS = 2_000;

export class LeanHttpClientTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** The server's `Mcp-Session-Id`, known after the initialize reply. */
  sessionId?: string;

  private readonly mod: typeof http | typeof https;
  private readonly agent: http.Agent;
  private readonly baseHeaders: Record<string, string>;
  private protocolVersion?: string;
  /** Every request whose exchange is not finished, the GET stream included. */
  private readonly live = new Set<http.ClientRequest>();
  private getOpened = false;
  /**
   * From `initialized` until the GET stream is answered (or GET_STREAM_WAIT_MS): later
   * messages wait, so a request the server sends on that stream in reply to them (sampling
   * outside any call, say) finds it open instead of being dropped by the server.
   */
  private getGate?: HoldGate;
  private started = false;
  private closed = false;
  /** The sign-in's current `Authorization` value (authedSend.ts). */
  private authorization?: string;

  constructor(
    private readonly url: URL,
    private readonly opts: LeanHttpClientOptions = {},
  ) {
    const secure = url.protocol === 'https:';
    // TLS is loaded only for an https URL (bridge and local servers are plain http).
    const tls: typeof https | undefined = secure ? process.getBuiltinModule('node:https') : undefined;
    this.mod = tls ?? http;
    // `timeout` only closes idle pooled sockets (a busy socket just gets an event). Without
    // it Node 20 ignores the server's `Keep-Alive: timeout=N` hint, and a POST could reuse a
    // socket the server is closing at that moment (ECONNRESET, then a needless reconnect).
    this.agent = new (tls ? tls.Agent : http.Agent)({
      keepAlive: true,
      maxSockets: MAX_SOCKETS,
      timeout: IDLE_SOCKET_MS,
    });
    this.baseHeaders = { ...opts.headers };
  }

  /** Nothing to connect: the first POST (initialize) opens the session. */
  async start(): Promise<void> {
    if (this.started) throw new Error('LeanHttpClientTransport already started');
    this.started = true;
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  /**
   * POSTs one message. Resolves once the server accepted it: after a 202, after a JSON reply
   * was delivered, or as soon as an event-stream reply starts (its events follow).
   */
  send(message: JSONRPCMessage): Promise<void> {
    const auth = this.opts.auth;
    const go = auth
      ? () => authedSend(auth, (a) => ((this.authorization = a), this.post(message)))
      : () => this.post(message);
    return this.getGate ? this.getGate.wait.then(go) : go();
  }

  private post(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('transport closed'));
    const body = JSON.stringify(message);
    const headers = this.headers({
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Content-Length': String(Buffer.byteLength(body)),
    });
    const hadSession = this.sessionId !== undefined;
    const isInitialized = methodOf(message) === 'notifications/initialized';
    // What arrives on this POST's event stream belongs to the request it carried.
    const related: RelatedExtra | undefined = isRequest(message) ? { relatedRequestId: message.id } : undefined;
    if (isInitialized && !this.getOpened) this.holdUntilGetAnswered();
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const ok = () => {
        if (settled) return;
        settled = true;
        resolve();
        if (isInitialized) this.openGetStream();
      };
      const fail = (err: Error) => {
        // After success, a cut reply stream reports itself (readEvents).
        if (settled) return;
        settled = true;
        reject(this.closed ? new Error('transport closed') : err);
        if (isInitialized) this.getGate?.release();
        // Under a sign-in a 401/403 is its to judge (authedSend.ts), not a broken connection.
        if (!(this.opts.auth && isAuthRefusal(err))) this.report(err);
      };
      const req = this.mod.request(this.url, { method: 'POST', agent: this.agent, headers });
      this.live.add(req);
      req.on('error', (err) => {
        this.live.delete(req);
        fail(describeConnectError(err, this.url));
      });
      req.on('response', (res) => {
        const sid = res.headers['mcp-session-id'];
        if (typeof sid === 'string' && sid && this.sessionId === undefined) this.sessionId = sid;
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          readText(res, ERROR_BODY_LIMIT, (text) => {
            this.live.delete(req);
            const expired = status === 404 && hadSession;
            const err = httpStatusError(
              status,
              this.url,
              text,
              expired ? `session ${this.sessionId} expired (HTTP 404)` : undefined,
            );
            err.challenge = [res.headers['www-authenticate'] ?? []].flat().join(', ') || undefined;
            fail(err);
          });
          return;
        }
        const type = res.headers['content-type'] ?? '';
        if (status === 202 || (!type.includes('text/event-stream') && !type.includes('application/json'))) {
          res.resume();
          res.once('end', () => this.live.delete(req));
          ok();
          return;
        }
        if (type.includes('text/event-stream')) {
          this.readEvents(req, res, 'reply event stream', related);
          ok();
          return;
        }
        readText(res, Infinity, (text, complete) => {
          this.live.delete(req);
          if (!complete) return fail(new Error(`JSON reply from ${redactUrl(this.url.href)} ended early`));
          if (text.trim() !== '' && !this.deliver(text)) return fail(new Error('invalid JSON-RPC reply'));
          ok();
        });
      });
      req.end(body);
    });
  }

  /** Aborts what is in flight, ends the session (DELETE, best effort, 1 s), frees the sockets. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.getGate?.release();
    for (const req of this.live) req.destroy();
    this.live.clear();
    if (this.sessionId !== undefined) await this.deleteSession().catch(() => undefined);
    this.agent.destroy();
    this.onclose?.();
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = { ...this.baseHeaders, ...extra };
    if (this.authorization !== undefined) h.Authorization = this.authorization;
    if (this.sessionId !== undefined) h['Mcp-Session-Id'] = this.sessionId;
    if (this.protocolVersion !== undefined) h['Mcp-Protocol-Version'] = this.protocolVersion;
    return h;
  }

  private report(err: Error): void {
    if (this.closed) return;
    this.opts.logger?.debug(`transport error: ${errorText(err)}`);
    this.onerror?.(err);
  }

  /**
   * Parses one JSON body (a message or a batch) and delivers each message. False when the
   * text is not JSON or not JSON-RPC 2.0.
   */
  private deliver(text: string, extra?: RelatedExtra): boolean {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return false;
    }
    const list = Array.isArray(parsed) ? parsed : [parsed];
    for (const m of list) {
      if (this.closed) return true;
      if (!m || typeof m !== 'object' || (m as { jsonrpc?: unknown }).jsonrpc !== '2.0') return false;
      this.onmessage?.(m as JSONRPCMessage, extra);
    }
    return true;
  }

  /** Delivers each `message` event of an event stream until it ends; a cut is an error. */
  private readEvents(req: http.ClientRequest, res: http.IncomingMessage, what: string, extra?: RelatedExtra): void {
    const parser = new SseParser((e) => {
      if (e.event !== 'message' || e.data === '') return;
      if (!this.deliver(e.data, extra)) this.report(new Error(`invalid JSON-RPC message in ${what}`));
    });
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => parser.push(chunk));
    // 'close' always follows; it tells a complete stream from a cut one.
    res.on('error', () => undefined);
    res.on('close', () => {
      parser.end();
      this.live.delete(req);
      if (this.closed) return;
      if (!res.complete) this.report(new Error(`${what} from ${redactUrl(this.url.href)} was cut`));
      else if (what === 'GET event stream')
        this.report(new Error(`GET event stream from ${redactUrl(this.url.href)} ended`));
    });
  }

  private holdUntilGetAnswered(): void {
    this.getGate ??= new HoldGate(this.opts.getStreamWaitMs ?? GET_STREAM_WAIT_MS, () => (this.getGate = undefined));
  }

  /** After `initialized`: one GET stream for server-initiated messages; 405 means none. */
  private openGetStream(): void {
    if (this.getOpened || this.closed) return this.getGate?.release();
    this.getOpened = true;
    const req = this.mod.request(this.url, {
      method: 'GET',
      agent: this.agent,
      headers: this.headers({ Accept: 'text/event-stream' }),
    });
    this.live.add(req);
    req.on('error', (err) => {
      this.live.delete(req);
      this.getGate?.release();
      this.report(describeConnectError(err, this.url));
    });
    req.on('response', (res) => {
      this.getGate?.release();
      const status = res.statusCode ?? 0;
      const type = res.headers['content-type'] ?? '';
      // 405 is the spec's "no GET stream"; some servers say 404 (a forgotten session shows on the next POST).
      if (status === 405 || status === 404) {
        this.opts.logger?.debug(`server offers no GET event stream (${status})`);
        res.resume();
        res.once('end', () => this.live.delete(req));
        return;
      }
      if (status < 200 || status >= 300 || !type.includes('text/event-stream')) {
        res.resume();
        this.live.delete(req);
        this.report(httpStatusError(status, this.url, '', `GET event stream refused: HTTP ${status} ${type}`));
        return;
      }
      this.readEvents(req, res, 'GET event stream');
    });
    req.end();
  }

  private deleteSession(): Promise<void> {
    return new Promise<void>((resolve) => {
      const req = this.mod.request(this.url, { method: 'DELETE', agent: this.agent, headers: this.headers({}) });
      const timer = setTimeout(() => req.destroy(), DELETE_TIMEOUT_MS);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      req.on('error', done);
      req.on('response', (res) => {
        res.resume();
        res.on('close', done);
      });
      req.end();
    });
  }
}
