/**
 * Streamable HTTP (`/mcp/<id>` and `/mcp`): one {@link StreamableSessionTransport} per
 * session, found again by its `Mcp-Session-Id`.
 *
 * This file does the HTTP checks the SDK's server transport does (Accept, Content-Type,
 * `Mcp-Protocol-Version`, the JSON-RPC shape of the body, one initialize per session,
 * one GET stream per session) and hands each valid request to the session's transport,
 * which answers a plain request with one JSON body and switches to an SSE stream only
 * when something related must go out before the answer (see that file).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../common/protocolVersion.js';
import { errorText, type Logger } from '../common/logger.js';
import { sendJsonRpcError } from './body.js';
import { ErrorCode } from '../jsonrpc/jsonRpc.js';
import { routeOf, type McpSessionHandler } from './mcpRoute.js';
import { admitRoute, connectTransport, type SessionEntry, type SessionTable } from './sessionTable.js';
import { StreamableSessionTransport } from './streamableSessionTransport.js';
import { isRev2026HttpRequest, serve2026 } from './rev2026Endpoint.js';

export interface StreamableEndpointOptions {
  handler: McpSessionHandler;
  sessions: SessionTable;
  keepAliveMs: number;
  logger: Logger;
}

type Wire = Record<string, unknown>;

/** A refused request: HTTP status, JSON-RPC code, message. */
type Refusal = [number, number, string];

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function isId(v: unknown): boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** The JSON-RPC 2.0 shape of one message: a request, a notification or a response. */
function isJsonRpcMessage(m: unknown): m is Wire {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return false;
  const w = m as Wire;
  if (w.jsonrpc !== '2.0') return false;
  if (typeof w.method === 'string') return w.id === undefined || isId(w.id);
  if (w.method !== undefined || !isId(w.id)) return false;
  return 'result' in w ? !('error' in w) : typeof w.error === 'object' && w.error !== null;
}

function isInitialize(m: Wire): boolean {
  return m.method === 'initialize' && m.id !== undefined;
}

/** Spec checks shared by every method; undefined when the request may go on. */
function checkProtocolVersion(req: IncomingMessage): Refusal | undefined {
  const v = headerValue(req, 'mcp-protocol-version');
  if (v === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(v)) return undefined;
  return [
    400,
    ErrorCode.ServerError,
    `Bad Request: Unsupported protocol version: ${v} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
  ];
}

/** Checks a POST's headers and body; returns its messages or why it is refused. */
export function checkPost(req: IncomingMessage, body: unknown): { messages: Wire[]; batch: boolean } | Refusal {
  const accept = headerValue(req, 'accept') ?? '';
  // The client must be able to read a JSON answer or an event stream (the SDK asks for both;
  // a client that accepts either, or anything, is served).
  if (!/application\/json|text\/event-stream|\*\/\*/.test(accept)) {
    return [406, ErrorCode.ServerError, 'Not Acceptable: Client must accept application/json or text/event-stream'];
  }
  const type = (headerValue(req, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json')
    return [415, ErrorCode.ServerError, 'Unsupported Media Type: Content-Type must be application/json'];
  const batch = Array.isArray(body);
  const messages = batch ? (body as unknown[]) : [body];
  if (messages.length === 0 || !messages.every(isJsonRpcMessage)) {
    return [400, ErrorCode.ParseError, 'Parse error: Invalid JSON-RPC message'];
  }
  if (messages.some(isInitialize) && messages.length > 1) {
    return [400, ErrorCode.InvalidRequest, 'Invalid Request: Only one initialization request is allowed'];
  }
  return { messages, batch };
}

/** Serves the streamable HTTP routes; the caller has authenticated and read the body. */
export class StreamableEndpoint {
  constructor(private readonly opts: StreamableEndpointOptions) {}

  /**
   * Handles one request on `serverId`'s route (`undefined` = aggregated). `body` is the
   * parsed JSON of a POST, undefined for GET and DELETE.
   */
  async handle(req: IncomingMessage, res: ServerResponse, serverId: string | undefined, body: unknown): Promise<void> {
    const sessionId = headerValue(req, 'mcp-session-id');
    const post = req.method === 'POST' ? checkPost(req, body) : undefined;
    // MCP 2026-07-28: stateless, one request per POST, no session (bridge/rev2026Endpoint.ts).
    if (sessionId === undefined && isRev2026HttpRequest(req)) {
      if (Array.isArray(post)) return refuse(res, post);
      return serve2026(this.opts.handler, this.opts.logger, req, res, serverId, post?.messages ?? []);
    }
    if (sessionId === undefined) {
      if (post === undefined || Array.isArray(post) || !isInitialize(post.messages[0])) {
        if (Array.isArray(post)) refuse(res, post);
        else sendJsonRpcError(res, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required');
        return;
      }
      await this.open(req, res, serverId, post.messages, post.batch);
      return;
    }
    const entry = this.opts.sessions.find(sessionId, 'streamable', serverId) as
      SessionEntry<StreamableSessionTransport> | undefined;
    if (!entry || entry.transport.isClosed) {
      sendJsonRpcError(res, 404, ErrorCode.SessionNotFound, 'Session not found');
      return;
    }
    if (Array.isArray(post)) {
      refuse(res, post);
      return;
    }
    const badVersion = checkProtocolVersion(req);
    if (badVersion) {
      refuse(res, badVersion);
      return;
    }
    const transport = entry.transport;
    if (post) {
      if (post.messages.some(isInitialize)) {
        refuse(res, [400, ErrorCode.InvalidRequest, 'Invalid Request: Server already initialized']);
        return;
      }
      this.dispatch(entry, res, () => transport.handlePost(req, res, post.messages, post.batch));
    } else if (req.method === 'GET') {
      if (!/text\/event-stream|\*\/\*/.test(headerValue(req, 'accept') ?? '')) {
        refuse(res, [406, ErrorCode.ServerError, 'Not Acceptable: Client must accept text/event-stream']);
      } else if (transport.hasStandaloneStream) {
        refuse(res, [409, ErrorCode.ServerError, 'Conflict: Only one SSE stream is allowed per session']);
      } else {
        this.dispatch(entry, res, () => transport.openStandalone(res));
      }
    } else {
      // DELETE: answer, then end the session (its onclose removes it from the table).
      res.writeHead(200, { 'mcp-session-id': entry.id });
      res.end();
      await transport.close();
    }
  }

  /** Creates the session of a valid `initialize` POST, connects it, then lets it answer. */
  private async open(
    req: IncomingMessage,
    res: ServerResponse,
    serverId: string | undefined,
    messages: Wire[],
    batch: boolean,
  ): Promise<void> {
    const { handler, sessions, logger } = this.opts;
    if (!admitRoute(handler, serverId, res, true)) return;
    // The session is in the table before it answers the initialize (the client may send
    // its next request as soon as it has the reply).
    const id = randomUUID();
    const transport = new StreamableSessionTransport({ sessionId: id, keepAliveMs: this.opts.keepAliveMs });
    transport.onerror = (err) => logger.debug(`session ${id}: ${errorText(err)}`);
    const route = routeOf(serverId, 'streamable', req.headers);
    const entry = sessions.add({ id, kind: 'streamable', serverId, transport });
    try {
      await connectTransport(handler, transport, route, () => sessions.remove(id));
    } catch (err) {
      logger.error(`session handler refused a streamable session on ${serverId ?? '<all>'}: ${errorText(err)}`);
      sessions.remove(id);
      await transport.close().catch(() => {});
      sendJsonRpcError(res, 500, ErrorCode.InternalError, `Internal error: ${errorText(err)}`);
      return;
    }
    this.dispatch(entry, res, () => transport.handlePost(req, res, messages, batch));
  }

  private dispatch(entry: SessionEntry, res: ServerResponse, run: () => void): void {
    this.opts.sessions.track(entry, res);
    try {
      run();
    } catch (err) {
      this.opts.logger.error(`session ${entry.id}: request failed: ${errorText(err)}`);
      if (!res.headersSent) sendJsonRpcError(res, 500, ErrorCode.InternalError, 'Internal error');
      else res.destroy();
    }
  }
}

function refuse(res: ServerResponse, [status, code, message]: Refusal): void {
  sendJsonRpcError(res, status, code, message);
}
