/**
 * The bridge's side of the stream link (see mcpStream.ts): an HTTP `upgrade` to
 * `mcp-stream` on `/mcp/<id>` or `/mcp` becomes one session whose transport is the
 * connection itself, read and written like a stdio server's pipes. It passes the same gates
 * as every request of the bridge (Host, Origin, the token), then the route's, as a new
 * streamable session would.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { errorText, type Logger } from '../common/logger.js';
import { StdioServerTransport } from '../stdio/stdioServerTransport.js';
import { routeOf, type McpSessionHandler } from './mcpRoute.js';
import { MCP_STREAM_UPGRADE } from './mcpStream.js';
import { authorized, checkHostAndOrigin, wwwAuthenticate } from './security.js';
import { connectTransport, routeRefusal, type SessionTable } from './sessionTable.js';

export interface StreamUpgradeOptions {
  handler: McpSessionHandler;
  sessions: SessionTable;
  /** Largest message accepted from the client (the bridge's body cap). */
  maxMessageBytes: number;
  logger: Logger;
}

/** The bridge's state an upgrade is checked against. */
export interface UpgradeGates {
  /** The bridge is stopping: every upgrade gets 503. */
  stopping: boolean;
  /** The `Host` values the bridge answers to. */
  allowedHosts: Set<string>;
  /** The bearer token. */
  token: string;
}

/** How long a closed session's connection may take to end before it is cut. */
const END_GRACE_MS = 1_000;
/** After the client ended its side, how long replies still due may keep our side open. */
const END_AFTER_PEER_END_MS = 15_000;
const MCP_ROUTE = /^\/mcp(?:\/([^/]+))?\/?$/;

/** Writes a plain HTTP answer on a connection that was not upgraded, then ends it. */
export function refuseUpgrade(
  socket: Socket,
  status: number,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ error: message, ...extra });
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  if (socket.writable) socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  setTimeout(() => socket.destroy(), END_GRACE_MS).unref();
}

/**
 * A session's transport: the stdio transport over the upgraded connection, which it ends on
 * close, and also once the client ended its side and every request received is answered
 * (the bridge's sockets are half-open: without this one stays in CLOSE-WAIT per ended
 * client, and the bridge's stop waits for it).
 */
class StreamSessionTransport extends StdioServerTransport {
  private peerEnded = false;

  constructor(
    private readonly socket: Socket,
    maxMessageBytes: number,
    logger: Logger,
  ) {
    super({ input: socket, output: socket, idleTimeoutMs: 0, maxMessageBytes, logger });
  }

  override send(message: Parameters<StdioServerTransport['send']>[0]): Promise<void> {
    const sent = super.send(message);
    if (this.peerEnded && this.awaitingReplies === 0) this.endSocket();
    return sent;
  }

  override async close(): Promise<void> {
    await super.close();
    this.endSocket();
  }

  protected override inputEnded(): void {
    this.peerEnded = true;
    if (this.awaitingReplies === 0) return this.endSocket();
    // Replies still due: the session finishes them (bounded by its own drain); this bounds it here too.
    setTimeout(() => this.endSocket(), END_AFTER_PEER_END_MS).unref();
  }

  /** Ends our side (pending writes are flushed first); a peer that does not close in time is cut. */
  private endSocket(): void {
    if (this.socket.destroyed || this.socket.writableEnded) return;
    this.socket.end();
    setTimeout(() => this.socket.destroy(), END_GRACE_MS).unref();
  }
}

export class StreamUpgradeEndpoint {
  /** Upgraded connections still open (the HTTP server's closeAllConnections() does not see them). */
  private readonly sockets = new Set<Socket>();

  constructor(private readonly opts: StreamUpgradeOptions) {}

  /** Cuts every upgraded connection still open (the bridge's stop, after its sessions closed). */
  destroyAll(): void {
    // Those a closed session ended already have their own short grace.
    for (const socket of this.sockets) if (!socket.writableEnded) socket.destroy();
    this.sockets.clear();
  }

  /** Any `upgrade` the bridge's server gets: the gates in the order a request meets them, then the route. */
  async upgrade(req: IncomingMessage, socket: Socket, head: Buffer, gates: UpgradeGates): Promise<void> {
    socket.on('error', () => undefined); // a client gone mid-answer is not ours to report
    if (gates.stopping) return refuseUpgrade(socket, 503, 'bridge is stopping');
    const gate = checkHostAndOrigin(req.headers, gates.allowedHosts, req.url);
    if (gate) {
      this.opts.logger.warn(`refused upgrade of ${req.url?.split('?')[0]}: ${gate.message}`);
      return refuseUpgrade(socket, gate.status, gate.message);
    }
    if (req.headers.upgrade?.toLowerCase() !== MCP_STREAM_UPGRADE)
      return refuseUpgrade(socket, 400, `unsupported upgrade "${req.headers.upgrade ?? ''}"`);
    if (!authorized(req.headers, gates.token))
      return refuseUpgrade(socket, 401, 'unauthorized', {}, { 'WWW-Authenticate': wwwAuthenticate() });
    const route = MCP_ROUTE.exec(new URL(req.url ?? '/', 'http://bridge.invalid').pathname);
    if (!route) return refuseUpgrade(socket, 404, 'not found');
    let serverId: string | undefined;
    try {
      serverId = route[1] === undefined ? undefined : decodeURIComponent(route[1]);
    } catch {
      return refuseUpgrade(socket, 400, 'malformed server id');
    }
    await this.open(req, socket, head, serverId);
  }

  /** Serves one upgrade request on route `serverId` (undefined = the aggregated route). */
  private async open(req: IncomingMessage, socket: Socket, head: Buffer, serverId: string | undefined): Promise<void> {
    const { handler, sessions, logger } = this.opts;
    if (req.method !== 'GET') return refuseUpgrade(socket, 405, 'method not allowed', {}, { Allow: 'GET' });
    const refusal = routeRefusal(handler, serverId, true);
    if (refusal) return refuseUpgrade(socket, refusal.status, refusal.message, refusal.extra, refusal.headers);
    socket.setNoDelay(true);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${MCP_STREAM_UPGRADE}\r\nConnection: Upgrade\r\n\r\n`);
    if (head.length > 0) socket.unshift(head);
    const transport = new StreamSessionTransport(socket, this.opts.maxMessageBytes, logger);
    const id = randomUUID();
    const entry = sessions.add({ id, kind: 'stream', serverId, transport });
    // The connection is the session: busy while open, so it never idles out.
    sessions.track(entry, socket);
    this.sockets.add(socket);
    socket.once('close', () => {
      this.sockets.delete(socket);
      sessions.remove(id);
      void transport.close();
    });
    const route = routeOf(serverId, 'stream', req.headers);
    try {
      await connectTransport(handler, transport, route, () => sessions.remove(id));
    } catch (err) {
      logger.error(`session handler refused a stream session on ${serverId ?? '<all>'}: ${errorText(err)}`);
      sessions.remove(id);
      socket.destroy();
    }
  }
}
