/**
 * Streamable HTTP (`/mcp/<id>` and `/mcp`): one SDK `StreamableHTTPServerTransport` per
 * session in stateful mode, found again by its `Mcp-Session-Id`.
 *
 * Replies are SSE streams, not JSON (`enableJsonResponse: false`). With JSON replies the
 * SDK transport has nowhere to put a message tied to a request in flight: progress
 * notifications, request-scoped log messages and server-to-client requests made during
 * a tool call (elicitation, sampling, roots) are silently dropped, and such a request
 * would wait forever. The bridge forwards exactly those, so it keeps the SSE reply; a
 * plain request/response still costs one small stream that ends with the answer. The
 * SDK transport also writes keep-alive comments on its streams (`keepAliveMs`).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { errorText, type Logger } from '../logger.js';
import {
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_SERVER_ERROR,
  JSONRPC_SESSION_NOT_FOUND,
  sendJsonRpcError,
} from './body.js';
import type { McpRoute, McpSessionHandler } from './httpBridgeServer.js';
import { admitRoute, connectTransport, type SessionEntry, type SessionTable } from './sessionTable.js';

export interface StreamableEndpointOptions {
  handler: McpSessionHandler;
  sessions: SessionTable;
  keepAliveMs: number;
  logger: Logger;
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function isInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
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
    if (sessionId !== undefined) {
      const entry = this.opts.sessions.find(sessionId, 'streamable', serverId);
      if (!entry) {
        sendJsonRpcError(res, 404, JSONRPC_SESSION_NOT_FOUND, 'Session not found');
        return;
      }
      await this.dispatch(entry, req, res, body);
      return;
    }
    if (req.method !== 'POST' || !isInitialize(body)) {
      sendJsonRpcError(res, 400, JSONRPC_SERVER_ERROR, 'Bad Request: Mcp-Session-Id header is required');
      return;
    }
    await this.open(req, res, serverId, body);
  }

  /** Creates the session of an `initialize` POST, connects it, then lets it answer. */
  private async open(req: IncomingMessage, res: ServerResponse, serverId: string | undefined, body: unknown): Promise<void> {
    const { handler, sessions, logger } = this.opts;
    if (!admitRoute(handler, serverId, res, true)) return;
    // The id is chosen here so the session is in the table before the transport answers
    // the initialize (the client may send its next request as soon as it has the reply).
    const id = randomUUID();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      enableJsonResponse: false,
      keepAliveMs: this.opts.keepAliveMs,
    });
    transport.onerror = (err) => logger.debug(`session ${id}: ${errorText(err)}`);
    const route: McpRoute = { serverId, kind: 'streamable' };
    const entry = sessions.add({ id, kind: 'streamable', serverId, transport });
    try {
      await connectTransport(handler, transport, route, () => sessions.remove(id));
    } catch (err) {
      logger.error(`session handler refused a streamable session on ${serverId ?? '<all>'}: ${errorText(err)}`);
      sessions.remove(id);
      await transport.close().catch(() => {});
      sendJsonRpcError(res, 500, JSONRPC_INTERNAL_ERROR, `Internal error: ${errorText(err)}`);
      return;
    }
    await this.dispatch(entry, req, res, body);
    // The transport refused the initialize itself (bad Accept, bad batch...): no session.
    if (transport.sessionId === undefined) {
      sessions.remove(id);
      await transport.close().catch(() => {});
    }
  }

  private async dispatch(entry: SessionEntry, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    this.opts.sessions.track(entry, res);
    try {
      await (entry.transport as StreamableHTTPServerTransport).handleRequest(req, res, body);
    } catch (err) {
      this.opts.logger.error(`session ${entry.id}: ${req.method} failed: ${errorText(err)}`);
      if (!res.headersSent) sendJsonRpcError(res, 500, JSONRPC_INTERNAL_ERROR, 'Internal error');
      else res.destroy();
    }
  }
}
