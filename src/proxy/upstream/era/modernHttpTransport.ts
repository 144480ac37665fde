/**
 * ModernHttpClientTransport: the client side of 2026-07-28 Streamable HTTP on `node:http`.
 * Stateless: every message is its own POST, no session id, no GET stream, nothing to
 * reconnect (hence no ResilientTransportWrapper around it). Each POST carries the request
 * metadata headers the revision requires, mirrored from the body: `MCP-Protocol-Version`
 * (from the `_meta` envelope modernWire.ts puts on), `Mcp-Method`, and `Mcp-Name` for
 * `tools/call`, `prompts/get` (params.name), `resources/read` (params.uri) and the tasks
 * extension's `tasks/get|update|cancel` (params.taskId), Base64-sentinel encoded when not a
 * plain header value.
 *
 * A modern server answers errors with a 4xx and a JSON-RPC body: that body is delivered like
 * any reply. A reply that is not JSON-RPC, a refused connection or a reply stream cut before
 * its response become an error response for that request, so no caller waits on it.
 */
import http from 'node:http';
import type https from 'node:https';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { SseParser } from '../../../shared/sseParser.js';
import { ErrorCode, type RequestId } from '../../jsonrpc/jsonRpc.js';
import { describeConnectError, httpStatusError } from '../upstreamErrors.js';
import { readText } from '../readText.js';
import { errorText, type Logger } from '../../common/logger.js';
import { META_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION } from './modernProtocol.js';

const ERROR_BODY_LIMIT = 64_000;
// The tasks extension (SEP-2663) routes tasks/get|update|cancel by `Mcp-Name: <taskId>`.
const NAME_FROM: Record<string, 'name' | 'uri' | 'taskId'> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** A header value as 2026-07-28 "Value Encoding" wants it: plain visible ASCII, else `=?base64?...?=`. */
export function headerValue(v: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(v) && !(v.startsWith('=?base64?') && v.endsWith('?='));
  return plain ? v : `=?base64?${Buffer.from(v, 'utf8').toString('base64')}?=`;
}

/** The request metadata headers of one message (method, name, protocol version). */
export function modernHeaders(m: { method?: string; params?: Record<string, unknown> }): Record<string, string> {
  const h: Record<string, string> = {};
  const meta = m.params?._meta as Record<string, unknown> | undefined;
  const version = meta?.[META_PROTOCOL_VERSION];
  h['MCP-Protocol-Version'] = typeof version === 'string' ? version : MODERN_PROTOCOL_VERSION;
  if (!m.method) return h;
  h['Mcp-Method'] = m.method;
  const field = NAME_FROM[m.method];
  const name = field ? m.params?.[field] : undefined;
  if (typeof name === 'string') h['Mcp-Name'] = headerValue(name);
  return h;
}

export class ModernHttpClientTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private readonly mod: typeof http | typeof https;
  private readonly agent: http.Agent;
  private readonly live = new Set<http.ClientRequest>();
  private closed = false;

  constructor(
    private readonly url: URL,
    private readonly opts: { headers?: Record<string, string>; logger?: Logger } = {},
  ) {
    const tls: typeof https | undefined = url.protocol === 'https:' ? process.getBuiltinModule('node:https') : undefined;
    this.mod = tls ?? http;
    this.agent = new (tls ? tls.Agent : http.Agent)({ keepAlive: true, maxSockets: 64, timeout: 4_000 });
  }

  async start(): Promise<void> {}

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('transport closed'));
    const m = message as unknown as { id?: RequestId; method?: string; params?: Record<string, unknown> };
    const id = m.method !== undefined && m.id !== undefined ? m.id : undefined;
    const body = JSON.stringify(message);
    const headers = {
      ...this.opts.headers,
      ...modernHeaders(m),
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
        if ('id' in parsed && (parsed as { id: unknown }).id === id && !('method' in parsed)) answered = true;
        if (!this.closed) this.onmessage?.(parsed as JSONRPCMessage);
        return true;
      };
      const failRequest = (err: Error) => {
        if (id === undefined || answered || this.closed) return this.report(err);
        answered = true;
        this.onmessage?.({ jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: errorText(err) } } as JSONRPCMessage);
      };
      const req = this.mod.request(this.url, { method: 'POST', agent: this.agent, headers });
      this.live.add(req);
      const done = () => this.live.delete(req);
      req.on('error', (err) => {
        done();
        failRequest(describeConnectError(err, this.url));
        resolve();
      });
      req.on('response', (res) => {
        resolve();
        const status = res.statusCode ?? 0;
        const type = res.headers['content-type'] ?? '';
        if (type.includes('text/event-stream') && status < 300) {
          const parser = new SseParser((e) => {
            if (e.event === 'message' && e.data !== '' && !deliver(e.data)) this.report(new Error('invalid JSON-RPC message in a reply stream'));
          });
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => parser.push(chunk));
          res.on('error', () => undefined);
          res.on('close', () => {
            parser.end();
            done();
            if (!answered) failRequest(new Error(`reply stream for ${m.method} ended before its response`));
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
