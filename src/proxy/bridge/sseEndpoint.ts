/**
 * Legacy HTTP+SSE (protocol 2024-11-05): `GET /sse/<id>` (or `/sse`) opens the event
 * stream of a new session, whose `endpoint` event names `/messages/<id>?sessionId=...`
 * (or `/messages?sessionId=...`), where the client POSTs its messages. One SDK
 * `SSEServerTransport` per session; the session ends with its stream.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { errorText, type Logger } from '../common/logger.js';
import { sendError, sendJsonRpcError } from './body.js';
import { ErrorCode } from '../jsonrpc/jsonRpc.js';
import { startKeepAlive } from './eventStream.js';
import { routeOf, type McpSessionHandler } from './mcpRoute.js';
import { admitRoute, connectTransport, type SessionTable } from './sessionTable.js';

export interface SseEndpointOptions {
  handler: McpSessionHandler;
  sessions: SessionTable;
  keepAliveMs: number;
  logger: Logger;
}

/** The POST path announced to the client of a route. */
export function messagesPath(serverId: string | undefined): string {
  return serverId === undefined ? '/messages' : `/messages/${encodeURIComponent(serverId)}`;
}

/** Serves the legacy SSE routes; the caller has authenticated and read POST bodies. */
export class SseEndpoint {
  constructor(private readonly opts: SseEndpointOptions) {}

  /** `GET /sse[/<id>]`: opens a session whose stream is this response. */
  async openStream(req: IncomingMessage, res: ServerResponse, serverId: string | undefined): Promise<void> {
    const { handler, sessions, logger } = this.opts;
    if (!admitRoute(handler, serverId, res, true)) return;
    // The SDK writes its own head on start(); these are merged into it. Its
    // `Cache-Control: no-cache, no-transform` wins over ours, which is as strict.
    res.setHeader('X-Accel-Buffering', 'no');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // Loaded on first use: most bridges never serve a legacy SSE client.
    const { SSEServerTransport } = await import('@modelcontextprotocol/sdk/server/sse.js');
    const transport = new SSEServerTransport(messagesPath(serverId), res);
    const id = transport.sessionId;
    transport.onerror = (err) => logger.debug(`sse session ${id}: ${errorText(err)}`);
    const entry = sessions.add({ id, kind: 'sse', serverId, transport });
    // The stream is the session: it is busy for as long as the response is open, and a
    // closed response (client gone, or close()) ends the session.
    sessions.track(entry, res);
    // (The SDK transport reports its own onclose when the response closes.)
    res.once('close', () => sessions.remove(id));
    const route = routeOf(serverId, 'sse', req.headers);
    try {
      await connectTransport(handler, transport, route, () => sessions.remove(id));
    } catch (err) {
      logger.error(`session handler refused an SSE session on ${serverId ?? '<all>'}: ${errorText(err)}`);
      sessions.remove(id);
      if (!res.headersSent) sendJsonRpcError(res, 500, ErrorCode.InternalError, `Internal error: ${errorText(err)}`);
      else res.end();
      return;
    }
    if (!res.headersSent) {
      // Contract: connect() starts the transport (as the SDK's Protocol.connect does).
      logger.error(`session handler did not start the SSE transport of session ${id}`);
      sessions.remove(id);
      sendJsonRpcError(res, 500, ErrorCode.InternalError, 'Internal error: session not started');
      return;
    }
    res.socket?.setNoDelay(true);
    startKeepAlive(res, this.opts.keepAliveMs);
  }

  /** `POST /messages[/<id>]?sessionId=...`: one client message for an open session. */
  async handlePost(
    req: IncomingMessage,
    res: ServerResponse,
    serverId: string | undefined,
    sessionId: string | null,
    body: unknown,
  ): Promise<void> {
    if (!sessionId) {
      sendError(res, 400, 'missing sessionId query parameter');
      return;
    }
    const entry = this.opts.sessions.find(sessionId, 'sse', serverId);
    if (!entry) {
      sendJsonRpcError(res, 404, ErrorCode.SessionNotFound, 'Session not found');
      return;
    }
    try {
      await (entry.transport as SSEServerTransport).handlePostMessage(req, res, body);
    } catch (err) {
      // The SDK has answered already (400/500) in every path that throws.
      this.opts.logger.debug(`sse session ${sessionId}: POST failed: ${errorText(err)}`);
      if (!res.headersSent) sendJsonRpcError(res, 500, ErrorCode.InternalError, 'Internal error');
    }
  }
}
