/**
 * Rev2026HttpClientTransport: the client side of 2026-07-28 Streamable HTTP on `node:http`.
 * Stateless: every message is its own POST, no session id, no GET stream, nothing to
 * reconnect (hence no ResilientTransportWrapper around it). Each POST carries the request
 * metadata headers the revision requires, mirrored from the body: `MCP-Protocol-Version`
 * (from the `_meta` envelope protocol/rev2026-07-28/envelopedTransport.ts puts on), `Mcp-Method`, and `Mcp-Name` for
 * `tools/call`, `prompts/get` (params.name), `resources/read` (params.uri) and the tasks
 * extension's `tasks/get|update|cancel` (params.taskId), Base64-sentinel encoded when not a
 * plain header value.
 *
 * For a tool whose inputSchema marks arguments with `x-mcp-header`, `tools/call` carries the
 * `Mcp-Param-*` headers (protocol/rev2026-07-28/toolParamHeaders.ts, learnt from the `tools/list` answers). A cancel
 * closes the request's POST (the revision has no client notification over HTTP). A connection
 * that fails or a reply stream that is cut closes the transport: the upstream then restarts
 * and probes the era again, so a server that came back in the other era is spoken to rightly.
 *
 * A modern server answers errors with a 4xx and a JSON-RPC body: that body is delivered like
 * any reply. A reply that is not JSON-RPC, a refused connection or a reply stream cut before
 * its response become an error response for that request, so no caller waits on it.
 */
import http from 'node:http';
import type https from 'node:https';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { SseParser } from '../../../shared/sseParser.js';
import { ErrorCode, type RequestId } from '../../jsonrpc/jsonRpc.js';
import { describeConnectError, httpStatusError } from '../../upstream/upstreamErrors.js';
import { readText } from '../../upstream/readText.js';
import { errorText, type Logger } from '../../common/logger.js';
import { META_PROTOCOL_VERSION, REV2026_PROTOCOL_VERSION } from './vocabulary.js';
import { headerValue, MCP_NAME_FIELD } from '../../common/mcpParamHeaders.js';
import { ToolParamHeaders } from './toolParamHeaders.js';

const ERROR_BODY_LIMIT = 64_000;

/** The request metadata headers of one message (method, name, protocol version). */
export function rev2026Headers(m: { method?: string; params?: Record<string, unknown> }): Record<string, string> {
  const h: Record<string, string> = {};
  const meta = m.params?._meta as Record<string, unknown> | undefined;
  const version = meta?.[META_PROTOCOL_VERSION];
  h['MCP-Protocol-Version'] = typeof version === 'string' ? version : REV2026_PROTOCOL_VERSION;
  if (!m.method) return h;
  h['Mcp-Method'] = m.method;
  const field = MCP_NAME_FIELD[m.method];
  const name = field ? m.params?.[field] : undefined;
  if (typeof name === 'string') h['Mcp-Name'] = headerValue(name);
  return h;
}

export class Rev2026HttpClientTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private readonly mod: typeof http | typeof https;
  private readonly agent: http.Agent;
  private readonly live = new Set<http.ClientRequest>();
  /** The POST of each request still waiting for its answer: a cancel closes it (2026-07-28 HTTP). */
  private readonly byId = new Map<RequestId, http.ClientRequest>();
  private readonly params: ToolParamHeaders;
  private closed = false;

  constructor(
    private readonly url: URL,
    private readonly opts: { headers?: Record<string, string>; logger?: Logger } = {},
  ) {
    const tls: typeof https | undefined =
      url.protocol === 'https:' ? process.getBuiltinModule('node:https') : undefined;
    this.mod = tls ?? http;
    this.agent = new (tls ? tls.Agent : http.Agent)({ keepAlive: true, maxSockets: 64, timeout: 4_000 });
    this.params = new ToolParamHeaders(opts.logger);
  }

  async start(): Promise<void> {}

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('transport closed'));
    const m = message as unknown as { id?: RequestId; method?: string; params?: Record<string, unknown> };
    if (m.method === 'notifications/cancelled' && m.id === undefined) {
      // Cancelling a request is closing its stream; 2026-07-28 HTTP has no client notification.
      const req = this.byId.get(m.params?.requestId as RequestId);
      if (req) {
        this.byId.delete(m.params?.requestId as RequestId);
        req.destroy();
      }
      return Promise.resolve();
    }
    const id = m.method !== undefined && m.id !== undefined ? m.id : undefined;
    const body = JSON.stringify(message);
    const headers = {
      ...this.opts.headers,
      ...rev2026Headers(m),
      ...(m.method === 'tools/call' ? this.params.headersFor(m.params) : undefined),
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Content-Length': String(Buffer.byteLength(body)),
    };
    return new Promise<void>((resolve) => {
      let answered = false;
      const deliver = (text: string) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return false;
        }
        if (!parsed || typeof parsed !== 'object' || (parsed as { jsonrpc?: unknown }).jsonrpc !== '2.0') return false;
        const final = 'id' in parsed && (parsed as { id: unknown }).id === id && !('method' in parsed);
        if (final) {
          answered = true;
          this.byId.delete(id!);
          if (m.method === 'tools/list') parsed = this.params.listed(parsed as Record<string, unknown>);
        }
        // What comes on a request's stream before its answer belongs to that request (a request-scoped log).
        if (!this.closed)
          this.onmessage?.(
            parsed as JSONRPCMessage,
            final || id === undefined ? undefined : ({ relatedRequestId: id } as MessageExtraInfo),
          );
        return true;
      };
      const failRequest = (err: Error) => {
        if (id === undefined || answered || this.closed) return this.report(err);
        answered = true;
        this.onmessage?.({
          jsonrpc: '2.0',
          id,
          error: { code: ErrorCode.InternalError, message: errorText(err) },
        } as JSONRPCMessage);
      };
      const req = this.mod.request(this.url, { method: 'POST', agent: this.agent, headers });
      this.live.add(req);
      if (id !== undefined) this.byId.set(id, req);
      const done = () => {
        this.live.delete(req);
        if (id !== undefined && this.byId.get(id) === req) this.byId.delete(id);
      };
      /** Cancelled by us (closed on purpose): nothing to report. */
      const cancelled = () => id !== undefined && !this.byId.has(id) && !answered;
      req.on('error', (err) => {
        const ours = cancelled();
        done();
        resolve();
        if (ours) return;
        failRequest(describeConnectError(err, this.url));
        this.lost(`the connection to ${this.url.host} failed: ${errorText(err)}`);
      });
      req.on('response', (res) => {
        resolve();
        const status = res.statusCode ?? 0;
        const type = res.headers['content-type'] ?? '';
        if (type.includes('text/event-stream') && status < 300) {
          const parser = new SseParser((e) => {
            if (e.event === 'message' && e.data !== '' && !deliver(e.data))
              this.report(new Error('invalid JSON-RPC message in a reply stream'));
          });
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => parser.push(chunk));
          res.on('error', () => undefined);
          res.on('close', () => {
            parser.end();
            const ours = cancelled();
            done();
            if (answered || ours) return;
            failRequest(new Error(`reply stream for ${m.method} ended before its response`));
            // Cut, not ended: the server went away (crashed, restarted, perhaps in another era).
            if (!res.complete) this.lost(`the reply stream of ${m.method} was cut`);
          });
          return;
        }
        readText(res, ERROR_BODY_LIMIT, (text) => {
          done();
          if (text.trim() !== '' && deliver(text)) return;
          if (status >= 300) failRequest(httpStatusError(status, this.url, text.slice(0, 2_000)));
          else if (id !== undefined) failRequest(new Error(`no JSON-RPC reply to ${m.method} (HTTP ${status})`));
        });
      });
      req.end(body);
    });
  }

  /**
   * The server is gone or another one answers on its address: the transport closes, so the
   * upstream restarts (its supervision) and probes the era again (re-probing, upstream/revisionConnect.ts).
   */
  private lost(why: string): void {
    if (this.closed) return;
    this.opts.logger?.info(`${why}; reconnecting`);
    void this.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const req of this.live) req.destroy();
    this.live.clear();
    this.agent.destroy();
    this.onclose?.();
  }

  private report(err: Error): void {
    if (this.closed) return;
    this.opts.logger?.debug(`transport error: ${errorText(err)}`);
    this.onerror?.(err);
  }
}
