/**
 * The bridge's `/mcp/<id>` and `/mcp` for MCP 2026-07-28 clients: stateless Streamable HTTP.
 * A POST with no `Mcp-Session-Id` whose `MCP-Protocol-Version` header names 2026-07-28 is
 * one self-contained request: its headers are checked against its body (2026-07-28 "Server
 * Validation": `Mcp-Method`, `Mcp-Name` (Base64 sentinel decoded), the protocol version and,
 * for a tool whose inputSchema marks arguments with `x-mcp-header`, the `Mcp-Param-*`
 * headers (common/mcpParamHeaders.ts), else 400 with -32020 HeaderMismatch), then it is served by a session of its own (the same
 * DownstreamSession the other routes use, which is modern for a request with the envelope)
 * that ends with the answer. The answer is one JSON body, or an SSE stream when a related
 * notification (progress, log) goes out first; the HTTP status follows the error code as the
 * revision says (400 for -32602/-32020/-32021/-32022, 404 for -32601). Closing the response
 * early cancels the request. No session id is minted; GET and DELETE are 405.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorText, type Logger } from '../common/logger.js';
import { ErrorCode } from '../jsonrpc/jsonRpc.js';
import { sendJsonRpcError } from './body.js';
import { routeOf, type McpSessionHandler } from './mcpRoute.js';
import { admitRoute } from './sessionTable.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../common/protocolVersion.js';
import {
  META_PROTOCOL_VERSION,
  REV2026_PROTOCOL_VERSION,
  SERVED_VERSIONS,
} from '../protocol/rev2026-07-28/vocabulary.js';
import { decodeHeaderValue, MCP_NAME_FIELD, paramHeaderMismatch, paramHeadersOf } from '../common/mcpParamHeaders.js';

const STATUS_OF: Record<number, number> = {
  [ErrorCode.MethodNotFound]: 404,
  [ErrorCode.InvalidParams]: 400,
  [ErrorCode.HeaderMismatch]: 400,
  [ErrorCode.MissingRequiredClientCapability]: 400,
  [ErrorCode.UnsupportedProtocolVersion]: 400,
};

type Wire = Record<string, unknown>;

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * True for a request the modern endpoint serves (the caller saw no session id): its
 * `MCP-Protocol-Version` is set and is not a 2025-era revision (those open a session with
 * `initialize`; an unknown version gets -32022 here).
 */
export function isRev2026HttpRequest(req: IncomingMessage): boolean {
  const v = header(req, 'mcp-protocol-version');
  return v !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(v);
}

/**
 * Why a modern POST's headers disagree with its body, if they do; `toolSchema` gives the
 * `inputSchema` of a tool of this route (for its `Mcp-Param-*` headers).
 */
export function headerMismatch(
  req: IncomingMessage,
  m: Wire,
  toolSchema?: (name: string) => unknown,
): string | undefined {
  const method = header(req, 'mcp-method');
  if (method === undefined) return 'Mcp-Method header is required';
  if (method !== m.method) return `Mcp-Method header value '${method}' does not match body value '${String(m.method)}'`;
  const params = (m.params as Wire | undefined) ?? {};
  const meta = (params._meta as Wire | undefined) ?? {};
  const version = meta[META_PROTOCOL_VERSION];
  if (version !== undefined && version !== REV2026_PROTOCOL_VERSION)
    return `MCP-Protocol-Version header value '${REV2026_PROTOCOL_VERSION}' does not match body value '${String(version)}'`;
  const field = MCP_NAME_FIELD[String(m.method)];
  if (!field) return undefined;
  const raw = header(req, 'mcp-name');
  if (raw === undefined) return 'Mcp-Name header is required';
  const name = decodeHeaderValue(raw);
  if (name === undefined) return 'Mcp-Name header has an invalid Base64 value';
  if (name !== params[field])
    return `Mcp-Name header value '${name}' does not match body value '${String(params[field])}'`;
  if (m.method !== 'tools/call' || !toolSchema) return undefined;
  const specs = paramHeadersOf(toolSchema(name));
  return typeof specs === 'string' || specs.length === 0
    ? undefined
    : paramHeaderMismatch(specs, params.arguments, (h) => header(req, h));
}

/** The transport of one modern request: it delivers the request, writes what comes back, ends with the answer. */
class OneRequestTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private streaming = false;
  private done = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly message: Wire,
  ) {
    res.on('close', () => {
      if (this.done) return;
      // The client closed the stream before the answer: that is the cancellation.
      this.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: message.id, reason: 'stream closed' },
      } as JSONRPCMessage);
      void this.close();
    });
  }

  async start(): Promise<void> {
    queueMicrotask(() => this.onmessage?.(this.message as unknown as JSONRPCMessage));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.done) return;
    const m = message as unknown as Wire;
    const final = m.id === this.message.id && !('method' in m);
    if (!final) {
      // Server-to-client requests do not exist in 2026-07-28; related notifications upgrade to SSE.
      if (typeof m.method !== 'string' || 'id' in m) return;
      if (!this.streaming) {
        this.streaming = true;
        this.res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          'x-accel-buffering': 'no',
        });
      }
      this.res.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
      return;
    }
    this.done = true;
    const body = JSON.stringify(m);
    if (this.streaming) this.res.end(`event: message\ndata: ${body}\n\n`);
    else {
      const code = (m.error as { code?: number } | undefined)?.code;
      const status = code === undefined ? 200 : (STATUS_OF[code] ?? 200);
      this.res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      });
      this.res.end(body);
    }
    queueMicrotask(() => void this.close());
  }

  async close(): Promise<void> {
    const cb = this.onclose;
    this.onclose = undefined;
    this.done = true;
    if (!this.res.writableEnded) this.res.end();
    cb?.();
  }
}

/** Serves one modern request (the caller checked Accept, Content-Type and the JSON-RPC shape). */
export async function serve2026(
  handler: McpSessionHandler,
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  serverId: string | undefined,
  messages: Wire[],
): Promise<void> {
  if (req.method !== 'POST') {
    sendJsonRpcError(
      res,
      405,
      ErrorCode.ServerError,
      'Method Not Allowed: MCP 2026-07-28 has no GET stream or session to delete',
      { allow: 'POST' },
    );
    return;
  }
  const m = messages[0]!;
  if (messages.length !== 1)
    return sendJsonRpcError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: one JSON-RPC message per POST');
  if (m.id === undefined || typeof m.method !== 'string') {
    // 2026-07-28 defines no client notification over HTTP (closing the stream cancels).
    res.writeHead(202).end();
    return;
  }
  const version = header(req, 'mcp-protocol-version');
  if (version !== REV2026_PROTOCOL_VERSION) {
    const data = { supported: SERVED_VERSIONS, requested: version };
    return refuse(
      res,
      m.id,
      ErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: ${String(version)}`,
      data,
    );
  }
  const mismatch = headerMismatch(
    req,
    m,
    handler.toolInputSchema && ((name) => handler.toolInputSchema!(serverId, name)),
  );
  if (mismatch) return refuse(res, m.id, ErrorCode.HeaderMismatch, `Header mismatch: ${mismatch}`);
  // The header says modern: the envelope is then required (the session checks the rest).
  const meta = ((m.params as Wire | undefined)?._meta as Wire | undefined) ?? {};
  if (meta[META_PROTOCOL_VERSION] === undefined) {
    return refuse(
      res,
      m.id,
      ErrorCode.InvalidParams,
      'Invalid params: _meta["io.modelcontextprotocol/protocolVersion"] is required',
    );
  }
  if (!admitRoute(handler, serverId, res, false)) return;
  const transport = new OneRequestTransport(res, m);
  try {
    // What the request's headers ask of its session (an ACP session's caller key, every tool listed).
    await handler.connect(transport, routeOf(serverId, 'streamable', req.headers));
  } catch (err) {
    logger.error(`modern request on ${serverId ?? '<all>'} refused: ${errorText(err)}`);
    if (!res.headersSent) sendJsonRpcError(res, 500, ErrorCode.InternalError, `Internal error: ${errorText(err)}`);
  }
}

function refuse(res: ServerResponse, id: unknown, code: number, message: string, data?: unknown): void {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  });
  res
    .writeHead(400, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) })
    .end(body);
}
