/**
 * The downstream MCP sessions of the HTTP bridge, keyed by session id (the streamable
 * `Mcp-Session-Id` or the legacy SSE `sessionId`), with idle expiry.
 *
 * A session is busy while any of its HTTP requests is open (a POST awaiting its answer,
 * a GET stream). Only when the last one ends does the idle clock start; after
 * `idleMs` without a request the transport is closed. A legacy SSE session ends with its
 * stream, so it never idles out while connected; a streamable client that vanished
 * without DELETE is reclaimed by the clock.
 */
import type { ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { errorText, type Logger } from '../common/logger.js';
import { sendError } from './body.js';
import type { McpRoute, McpSessionHandler } from './mcpRoute.js';

/** Default idle time after which a session without open requests is closed: 30 min. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;

export type SessionKind = 'streamable' | 'sse' | 'stream';

export interface SessionEntry<T extends Transport = Transport> {
  readonly id: string;
  readonly kind: SessionKind;
  /** The server id of the route, or undefined for the aggregated route. */
  readonly serverId: string | undefined;
  readonly transport: T;
  /** Open HTTP requests of this session. */
  busy: number;
  timer?: NodeJS.Timeout;
}

export class SessionTable {
  private readonly entries = new Map<string, SessionEntry>();

  constructor(
    private readonly idleMs: number,
    private readonly logger: Logger,
  ) {}

  /** Registers a session; its idle clock starts now (it has no open request yet). */
  add<T extends Transport>(entry: Omit<SessionEntry<T>, 'busy' | 'timer'>): SessionEntry<T> {
    const full: SessionEntry<T> = { ...entry, busy: 0 };
    this.entries.set(entry.id, full);
    this.arm(full);
    this.logger.debug(
      `session ${entry.id} opened (${entry.kind} ${entry.serverId ?? '<all>'}); ${this.entries.size} open`,
    );
    return full;
  }

  /** The session with this id on this route and of this kind, if any. */
  find(id: string, kind: SessionKind, serverId: string | undefined): SessionEntry | undefined {
    const e = this.entries.get(id);
    return e && e.kind === kind && e.serverId === serverId ? e : undefined;
  }

  /** Forgets a session (idempotent). Does not close its transport. */
  remove(id: string): void {
    const e = this.entries.get(id);
    if (!e) return;
    clearTimeout(e.timer);
    this.entries.delete(id);
    this.logger.debug(`session ${id} closed; ${this.entries.size} open`);
  }

  /**
   * Marks `res` (a response, or a stream link's connection) as open for the session: the
   * idle clock stops until every tracked one of the session has closed.
   */
  track(entry: SessionEntry, res: { once(event: 'close', listener: () => void): unknown }): void {
    entry.busy++;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    res.once('close', () => {
      entry.busy--;
      if (entry.busy === 0 && this.entries.get(entry.id) === entry) this.arm(entry);
    });
  }

  get size(): number {
    return this.entries.size;
  }

  /** Sessions on one route (`undefined` = the aggregated route). */
  countFor(serverId: string | undefined): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.serverId === serverId) n++;
    return n;
  }

  /** Closes every session's transport; resolves when all closes settled. */
  async closeAll(): Promise<void> {
    const all = [...this.entries.values()];
    for (const e of all) this.remove(e.id);
    await Promise.allSettled(all.map((e) => this.closeTransport(e)));
  }

  private arm(entry: SessionEntry): void {
    if (!(this.idleMs > 0) || !Number.isFinite(this.idleMs)) return;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      if (this.entries.get(entry.id) !== entry || entry.busy > 0) return;
      this.logger.info(`session ${entry.id} idle for ${this.idleMs} ms; closing it`);
      this.remove(entry.id);
      void this.closeTransport(entry);
    }, this.idleMs);
    // An idle clock must never keep the process alive.
    entry.timer.unref();
  }

  private async closeTransport(entry: SessionEntry): Promise<void> {
    try {
      await entry.transport.close();
    } catch (err) {
      this.logger.warn(`closing session ${entry.id} failed: ${errorText(err)}`);
    }
  }
}

/**
 * Hands a new transport to the session handler and makes sure `onClosed` runs when the
 * transport closes, whoever closes it. The hook is set before `connect()` (the SDK's
 * `Protocol.connect` chains a pre-existing `onclose`) and the whole chain is wrapped
 * afterwards, so it survives a handler that replaced `onclose`, and so the handler's
 * `onclose` runs once even though the SDK's SSE transport reports its close twice when
 * closed from our side (once from close(), once from the response's 'close').
 * `onClosed` must be idempotent.
 */
export async function connectTransport(
  handler: McpSessionHandler,
  transport: Transport,
  route: McpRoute,
  onClosed: () => void,
): Promise<void> {
  transport.onclose = onClosed;
  await handler.connect(transport, route);
  const current = transport.onclose as (() => void) | undefined;
  let fired = false;
  transport.onclose = () => {
    if (fired) return;
    fired = true;
    onClosed();
    if (current !== onClosed) current?.();
  };
}

/** Why a route refuses a request: the HTTP answer to give. */
export interface RouteRefusal {
  status: 404 | 503;
  message: string;
  extra: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * 404 for an unknown route and 503 (with the route's state) for one that is not ready;
 * undefined when the request may go on. The 503 applies only when a new session would be
 * created: requests of an existing session only get the 404, so a restarting server's
 * sessions stay open and the handler decides what they see.
 */
export function routeRefusal(
  handler: McpSessionHandler,
  serverId: string | undefined,
  newSession: boolean,
): RouteRefusal | undefined {
  const state = handler.routeState(serverId);
  if (state === 'ok') return undefined;
  if (state === 'unknown') {
    return {
      status: 404,
      message: serverId === undefined ? 'no aggregated route' : `unknown server "${serverId}"`,
      extra: { serverId },
      headers: {},
    };
  }
  if (!newSession) return undefined;
  return {
    status: 503,
    message: `server "${serverId ?? '<all>'}" is not ready`,
    extra: { serverId, state: state.notReady },
    headers: { 'Retry-After': '1' },
  };
}

/** {@link routeRefusal} answered on an HTTP response; false when the request was refused. */
export function admitRoute(
  handler: McpSessionHandler,
  serverId: string | undefined,
  res: ServerResponse,
  newSession: boolean,
): boolean {
  const refusal = routeRefusal(handler, serverId, newSession);
  if (refusal) sendError(res, refusal.status, refusal.message, refusal.extra, refusal.headers);
  return refusal === undefined;
}
