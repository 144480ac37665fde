// src/proxy/bridge/: the bridge's loopback HTTP surface (sessions, stream link, status, panel, security).
/**
 * The HTTP surface of the PersistentMcpBridge: MCP over streamable HTTP (`/mcp/<id>`,
 * `/mcp`) and legacy SSE (`/sse/<id>`, `/sse`, `/messages/<id>`), plus `/health`,
 * `/status`, `/events` (SSE of status changes), `POST /servers/<id>/restart|sign-in|sign-out|pins`,
 * `GET /agents/arrivals/<key>` (whether an agent's MCP connection came: agentArrivals.ts),
 * `POST /config/reload` and the static status panel. How sessions are served is not its business: every new
 * downstream session is handed to an {@link McpSessionHandler} as an SDK `Transport`.
 *
 * Security (see security.ts): loopback bind unless opted out; `Host` and `Origin`
 * checked on every request; a bearer token on every route but the static page. The
 * panel reads `/status` and `/events` with `fetch()` and an `Authorization` header
 * (streaming the SSE body itself) rather than `EventSource`, which cannot set headers:
 * so the token never appears in a URL, a log line or the browser history.
 */
import type { ActivitySource } from './activityRoute.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { errorText, Logger } from '../common/logger.js';
import {
  answerClientError,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  readJsonBody,
  requestDeadlines,
  sendBodyFailure,
  sendError,
  sendJson,
} from './body.js';
import { DEFAULT_SSE_KEEP_ALIVE_MS, EventStream } from './eventStream.js';
import {
  allowedHostHeaders,
  assertBindAllowed,
  authorized,
  checkHostAndOrigin,
  hostWithPort,
  isWildcardHost,
  wwwAuthenticate,
} from './security.js';
import { admitRoute, DEFAULT_SESSION_IDLE_MS, SessionTable } from './sessionTable.js';
import { SseEndpoint } from './sseEndpoint.js';
import { serveStatic } from './staticFiles.js';
import { StreamableEndpoint } from './streamableEndpoint.js';
import { StreamUpgradeEndpoint } from './streamUpgradeEndpoint.js';
import { within } from '../common/deadline.js';
import type { ConfigRoutesOptions } from './configRoutes.js';
import type { AppRoutesOptions } from '../apps/appRoutes.js';
import { CONFIG_ROUTE_PATH } from './configRoutePath.js';
import { handlePinRoute, PIN_ROUTE_PATH, type OnPinDecision } from './pinRoute.js';
import {
  handleServerAction,
  SERVER_ACTION_PATH,
  type ServerAction,
  type ServerActionHandlers,
} from './serverActions.js';
import { RELOAD_PATH, serveReload } from './reloadRoute.js';
import type { AgentLoadedHolder } from './agentLoadedTools.js';
import type { AgentArrivals } from './agentArrivals.js';
import type { AgentSessions, AgentSessionsHolder } from './agentSessions.js';
import { AGENT_SESSION_HEADER } from './agentHeaders.js';
import type { ReloadResult } from './reload.js';

export type { McpRoute, McpSessionHandler } from './mcpRoute.js';
import type { McpSessionHandler } from './mcpRoute.js';

export interface BridgeHttpOptions {
  /** Bind address; default '127.0.0.1'. A non-loopback host needs `allowNonLoopback`. */
  host?: string;
  /** TCP port; 0 picks a free one. */
  port: number;
  /** The bearer token every route but the static page requires. */
  token: string;
  allowNonLoopback?: boolean;
  /** Request body cap (default 10 MiB); 413 beyond. */
  maxBodyBytes?: number;
  /** How long a request's head, then its body, may take to arrive (default 30 s; 0: no limit); 408 beyond. */
  bodyTimeoutMs?: number;
  /** Idle time after which a session without open requests is closed (default 30 min). */
  sessionIdleMs?: number;
  /** Interval of SSE keep-alive comments (default 15 s, 0 disables). */
  sseKeepAliveMs?: number;
  handler: McpSessionHandler;
  /** JSON for `GET /status`. */
  status: () => unknown;
  /** Feeds `GET /events`; returns an unsubscribe function. */
  subscribeStatus: (cb: (s: unknown) => void) => () => void;
  /** `POST /servers/<id>/restart`, `/sign-in`, `/sign-out` (serverActions.ts); 501 when absent. */
  onRestart?: ServerActionHandlers['onRestart'];
  onSignIn?: ServerActionHandlers['onSignIn'];
  onSignOut?: ServerActionHandlers['onSignOut'];
  /** `POST /servers/<id>/pins`: accept or reject a tool's drifted definition (pinRoute.ts); 501 when absent. */
  onPinDecision?: OnPinDecision;
  /** The panel's management routes (`/config/*`, `/servers/<id>/log`, `/servers/<id>/tools/call`; configRoutes.ts); 404 when absent. */
  configRoutes?: Omit<ConfigRoutesOptions, 'maxBodyBytes' | 'bodyTimeoutMs'>;
  /** `POST /economy/sessions`: where the agents' proxies' reports of the tools they loaded are kept (agentLoadedTools.ts); 404 when absent. */
  agentLoaded?: AgentLoadedHolder;
  /** Where the app's ACP agent sessions that connected are listed for the status (agentSessions.ts); none when absent. */
  agentSessions?: AgentSessionsHolder;
  /** `POST /config/reload` (reloadRoute.ts); 501 when absent. */
  onReload?: () => Promise<ReloadResult>;
  /** Directory of the status panel, served at `/` without the token (Host check still applies). */
  staticDir?: string;
  /** Feeds `GET /activity` and `/activity/events` (activityRoute.ts); 404 when absent (the log is off). */
  activity?: () => ActivitySource | undefined;
  /** MCP Apps views' routes (`/apps/views/*`, apps/appRoutes.ts), once their code loaded; 404 before. */
  apps?: () => Omit<AppRoutesOptions, 'maxBodyBytes' | 'bodyTimeoutMs'> | undefined;
  logger?: Logger;
}

/** How long close() waits for transports to close and for sockets to end. */
const CLOSE_STEP_MS = 2_000;
const API_PATH = /^\/(mcp|sse|messages|health|status|events|servers|config|economy|install|activity|agents|apps)(\/|$)/;
/** MCP Apps views' routes (apps/appRoutes.ts `APP_ROUTE_PATH`, kept here so the file loads on first use). */
const APP_ROUTE_PATH = /^\/apps\/views\/([A-Za-z0-9_-]{1,64})(?:\/(call|read|accept))?\/?$/;
/** Where agents' proxies report the tools their sessions loaded (hub/economy/loadedReport.ts `LOADED_REPORT_PATH`). */
const AGENT_LOADED_PATH = '/economy/sessions';
const ACTIVITY_PATH = /^\/activity(\/events)?\/?$/;
const MCP_PATH = /^\/(mcp|sse|messages)(?:\/([^/]+))?\/?$/;
/** `GET /agents/arrivals/<key>` (agentArrivals.ts). */
const ARRIVALS_PATH = /^\/agents\/arrivals\/([^/]+)\/?$/;

/** The bridge's HTTP server. */
export class BridgeHttpServer {
  private readonly logger: Logger;
  private readonly sessions: SessionTable;
  private readonly streamable: StreamableEndpoint;
  private readonly sse: SseEndpoint;
  private readonly stream: StreamUpgradeEndpoint;
  private readonly eventStreams = new Set<EventStream>();
  /** Loaded with the first connection that carries an ACP session key, or the first question about one. */
  private arrivals: Promise<AgentArrivals> | undefined;
  /** Loaded with the first session whose connection carries an ACP session key. */
  private agentLedger: Promise<AgentSessions> | undefined;
  private readonly maxBodyBytes: number;
  private readonly bodyTimeoutMs: number;
  private server: Server | undefined;
  private allowedHosts = new Set<string>();
  private closing: Promise<void> | undefined;

  constructor(private readonly opts: BridgeHttpOptions) {
    this.logger = opts.logger ?? Logger.create('http');
    this.maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.bodyTimeoutMs = opts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
    this.sessions = new SessionTable(opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS, this.logger);
    const keepAliveMs = opts.sseKeepAliveMs ?? DEFAULT_SSE_KEEP_ALIVE_MS;
    const shared = {
      handler: this.withAgentSessions(opts.handler),
      sessions: this.sessions,
      keepAliveMs,
      logger: this.logger,
    };
    this.streamable = new StreamableEndpoint(shared);
    this.sse = new SseEndpoint(shared);
    this.stream = new StreamUpgradeEndpoint({ ...shared, maxMessageBytes: this.maxBodyBytes });
  }

  /** Binds and starts serving. Rejects for a refused host or a port in use. */
  async listen(): Promise<{ port: number; url: string }> {
    if (this.server) throw new Error('BridgeHttpServer already listening');
    const host = this.opts.host ?? '127.0.0.1';
    assertBindAllowed(host, this.opts.allowNonLoopback);
    const server = createServer(requestDeadlines(this.bodyTimeoutMs), (req, res) => {
      this.onRequest(req, res).catch((err) => {
        this.logger.error(`${req.method} ${req.url?.split('?')[0]} failed: ${errorText(err)}`);
        if (!res.headersSent) sendError(res, 500, 'internal error');
        else res.destroy();
      });
    });
    server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(err, socket));
    server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      const gates = { stopping: this.closing !== undefined, allowedHosts: this.allowedHosts, token: this.opts.token };
      // A stream link of an agent's own proxy: its session key is noted once the token checked out.
      if (authorized(req.headers, this.opts.token)) this.noteArrival(req);
      this.stream.upgrade(req, socket, head, gates).catch((err) => {
        this.logger.error(`upgrade of ${req.url?.split('?')[0]} failed: ${errorText(err)}`);
        socket.destroy();
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    this.allowedHosts = allowedHostHeaders(port, host);
    const url = `http://${isWildcardHost(host) ? '127.0.0.1' : hostWithPort(host, port).replace(/:\d+$/, '')}:${port}`;
    this.logger.info(`listening on ${url}`);
    return { port, url };
  }

  /** Open downstream sessions, both kinds, all routes. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Open sessions on one route (`undefined` = the aggregated route). */
  sessionsFor(serverId?: string): number {
    return this.sessions.countFor(serverId);
  }

  /**
   * Stops accepting, closes every session's transport and every `/events` stream, then
   * drops the remaining connections. Bounded: resolves within a few seconds whatever
   * the peers do. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    const server = this.server;
    if (!server) return;
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    await within(this.sessions.closeAll(), CLOSE_STEP_MS);
    for (const s of [...this.eventStreams]) s.close();
    server.closeAllConnections();
    this.stream.destroyAll();
    await within(stopped, CLOSE_STEP_MS);
    this.logger.info('closed');
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.closing) {
      sendError(res, 503, 'bridge is stopping', {}, { Connection: 'close' });
      return;
    }
    const gate = checkHostAndOrigin(req.headers, this.allowedHosts, req.url);
    if (gate) {
      this.logger.warn(`refused ${req.method} ${req.url?.split('?')[0]}: ${gate.message}`);
      sendError(res, gate.status, gate.message);
      return;
    }
    const url = new URL(req.url ?? '/', 'http://bridge.invalid');
    const path = url.pathname;
    if (this.opts.staticDir && !API_PATH.test(path) && (req.method === 'GET' || req.method === 'HEAD')) {
      await serveStatic(this.opts.staticDir, path, req, res);
      return;
    }
    if (!authorized(req.headers, this.opts.token)) {
      sendError(res, 401, 'unauthorized', {}, { 'WWW-Authenticate': wwwAuthenticate() });
      return;
    }
    const mcp = MCP_PATH.exec(path);
    if (mcp) {
      this.noteArrival(req);
      await this.onMcp(req, res, mcp[1], mcp[2], url);
      return;
    }
    const arrival = ARRIVALS_PATH.exec(path);
    if (arrival) {
      await (await this.agentArrivals()).serve(req, res, arrival[1], url);
      return;
    }
    if (path === AGENT_LOADED_PATH && this.opts.agentLoaded) {
      // Loaded with the first report (the tool economy's file, hub/economy/loadedReport.ts sends them).
      const { serveAgentLoaded } = await import('./agentLoadedTools.js');
      await serveAgentLoaded(req, res, this.opts.agentLoaded, this.bodyTimeoutMs);
      return;
    }
    if (path === RELOAD_PATH) {
      await serveReload(req, res, this.opts.onReload);
      return;
    }
    const routes = this.opts.configRoutes;
    if (routes && CONFIG_ROUTE_PATH.test(path)) {
      // Their code is loaded on the first such request (configRoutePath.ts).
      const { handleConfigRoute } = await import('./configRoutes.js');
      await handleConfigRoute(req, res, path, url, {
        ...routes,
        maxBodyBytes: this.maxBodyBytes,
        bodyTimeoutMs: this.bodyTimeoutMs,
      });
      return;
    }
    const pins = PIN_ROUTE_PATH.exec(path);
    if (pins) {
      const o = { ...this.opts, maxBodyBytes: this.maxBodyBytes, bodyTimeoutMs: this.bodyTimeoutMs };
      await handlePinRoute(req, res, pins[1], o);
      return;
    }
    const action = SERVER_ACTION_PATH.exec(path);
    if (action) {
      const o = { ...this.opts, maxBodyBytes: this.maxBodyBytes, bodyTimeoutMs: this.bodyTimeoutMs };
      await handleServerAction(req, res, action[1], action[2] as ServerAction, o);
      return;
    }
    const app = APP_ROUTE_PATH.exec(path);
    const apps = app && this.opts.apps?.();
    if (app && apps) {
      const { handleAppRoute } = await import('../apps/appRoutes.js');
      const o = { ...apps, maxBodyBytes: this.maxBodyBytes, bodyTimeoutMs: this.bodyTimeoutMs };
      await handleAppRoute(req, res, app, o);
      return;
    }
    const activity = ACTIVITY_PATH.exec(path);
    if (activity) {
      // Its code is loaded on the first such request.
      const { serveActivity } = await import('./activityRoute.js');
      const keepAliveMs = this.opts.sseKeepAliveMs ?? DEFAULT_SSE_KEEP_ALIVE_MS;
      serveActivity(req, res, activity[1] !== undefined, url, {
        source: this.opts.activity?.(),
        keepAliveMs,
        track: (s) => {
          this.eventStreams.add(s);
          s.onClose(() => this.eventStreams.delete(s));
        },
      });
      return;
    }
    if (path === '/health' || path === '/status' || path === '/events') {
      if (req.method !== 'GET') {
        sendError(res, 405, 'method not allowed', {}, { Allow: 'GET' });
        return;
      }
      if (path === '/health') sendJson(res, 200, { ok: true });
      else if (path === '/status') sendJson(res, 200, this.opts.status());
      else this.openEvents(res);
      return;
    }
    sendError(res, 404, 'not found');
  }

  private async onMcp(
    req: IncomingMessage,
    res: ServerResponse,
    kind: string,
    rawId: string | undefined,
    url: URL,
  ): Promise<void> {
    let serverId: string | undefined;
    try {
      serverId = rawId === undefined ? undefined : decodeURIComponent(rawId);
    } catch {
      sendError(res, 400, 'malformed server id');
      return;
    }
    const allowed = kind === 'mcp' ? ['GET', 'POST', 'DELETE'] : kind === 'sse' ? ['GET'] : ['POST'];
    if (!allowed.includes(req.method ?? '')) {
      sendError(res, 405, 'method not allowed', {}, { Allow: allowed.join(', ') });
      return;
    }
    // An unknown route is refused before reading anything; readiness only gates new sessions.
    if (!admitRoute(this.opts.handler, serverId, res, false)) return;
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJsonBody(req, this.maxBodyBytes, this.bodyTimeoutMs);
      if (!read.ok) {
        sendBodyFailure(res, read.reason, this.maxBodyBytes);
        return;
      }
      body = read.value;
    }
    if (kind === 'mcp') await this.streamable.handle(req, res, serverId, body);
    else if (kind === 'sse') await this.sse.openStream(req, res, serverId);
    else await this.sse.handlePost(req, res, serverId, url.searchParams.get('sessionId'), body);
  }

  private agentArrivals(): Promise<AgentArrivals> {
    return (this.arrivals ??= import('./agentArrivals.js').then((m) => new m.AgentArrivals()));
  }

  /** `handler`, with each session of an ACP agent's connection listed for the status first (agentSessions.ts). */
  private withAgentSessions(handler: McpSessionHandler): McpSessionHandler {
    const holder = this.opts.agentSessions;
    if (!holder) return handler;
    const connect: McpSessionHandler['connect'] = async (transport, route) => {
      const { agent } = route;
      const ledger = agent
        ? (this.agentLedger ??= import('./agentSessions.js').then((m) => {
            const made = new m.AgentSessions(() => holder.changed());
            holder.agentSessions = made;
            return made;
          }))
        : undefined;
      await handler.connect(transport, route);
      // After the handler, which may have replaced the transport's onclose: the ledger chains onto it.
      if (ledger && agent) (await ledger).opened({ ...route, agent }, transport);
    };
    return {
      connect,
      routeState: (serverId) => handler.routeState(serverId),
      ...(handler.toolInputSchema ? { toolInputSchema: handler.toolInputSchema.bind(handler) } : {}),
    };
  }

  /** Notes the ACP session key an authenticated request carries (agentArrivals.ts). */
  private noteArrival(req: IncomingMessage): void {
    if (req.headers[AGENT_SESSION_HEADER] === undefined) return;
    const headers = req.headers;
    void this.agentArrivals().then((a) => a.noteFrom(headers));
  }

  /** `GET /events`: the current status first, then one `status` event per change. */
  private openEvents(res: ServerResponse): void {
    const stream = new EventStream(res, { keepAliveMs: this.opts.sseKeepAliveMs ?? DEFAULT_SSE_KEEP_ALIVE_MS });
    stream.open();
    this.eventStreams.add(stream);
    stream.sendJson('status', this.opts.status());
    const unsubscribe = this.opts.subscribeStatus((s) => stream.sendJson('status', s));
    stream.onClose(() => {
      unsubscribe();
      this.eventStreams.delete(stream);
    });
  }
}
