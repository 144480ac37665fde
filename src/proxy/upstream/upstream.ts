// src/proxy/upstream/: one configured server: connection, handshake, cached lists, state, supervision, reconnection.
/**
 * One configured MCP server as seen by the proxy: its connection (through
 * `upstreamTransport`), the `initialize` handshake, cached lists refreshed on
 * `list_changed` (upstreamInbound.ts), a state machine with reasons, and supervision
 * (upstreamSupervisor.ts: restart with backoff, `failed` after repeated failures; a first
 * failed start is retried like a later crash).
 */
import type { ServerEntry } from '../config/config.js';
import { errorText, type Logger } from '../common/logger.js';
import { JsonRpcPeer, type PendingHandle, type RequestOptions } from '../jsonrpc/jsonRpcPeer.js';
import {
  ErrorCode,
  type RequestId,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
} from '../jsonrpc/jsonRpc.js';
import { buildUpstreamTransport, type BuiltTransport, type UpstreamTransportOptions } from './upstreamTransport.js';
import { ListCache, type ListKind } from './listCache.js';
import { revisionHandshake } from './revisionConnect.js';
import type { ResourceListen2026 } from '../protocol/rev2026-07-28/resourceListen.js';
import { declaredCapabilities } from '../config/clientCapabilities.js';
import { DEFAULT_SUPERVISION, type SupervisionOptions } from './restartPolicy.js';
import type { ServerState, ServerStatus } from '../../shared/status.js';
import { AnswerWatch } from './answerWatch.js';
import { UpstreamSupervisor } from './upstreamSupervisor.js';
import { UpstreamInbound } from './upstreamInbound.js';
import { exitText, stderrNow, upstreamStatus } from './upstreamStatus.js';
import { withSandbox } from '../sandbox/sandboxStatus.js';

export { CLIENT_INFO } from './upstreamHandshake.js';
export { DEFAULT_SUPERVISION, type SupervisionOptions } from './restartPolicy.js';

export interface UpstreamListener {
  state?(u: Upstream): void;
  listChanged?(u: Upstream, kind: ListKind): void;
  /** `relatedRequestId`: the upstream id of our request it came with (a modern server's request-scoped log). */
  notification?(u: Upstream, n: RpcNotification, relatedRequestId?: RequestId): void;
  /**
   * A request from the server to its client (sampling, elicitation, roots/list);
   * `relatedRequestId`: the upstream id of our request it belongs to, when the wire says so.
   */
  request?(u: Upstream, req: RpcRequest, relatedRequestId?: RequestId): void;
}

export class Upstream {
  state: ServerState;
  lastError?: string;
  startedAt?: Date;
  readyAt?: Date;
  restarts = 0;
  /** The HTTP status of the last failure, if it had one (401/403: credentials refused). */
  httpStatus?: number;
  initResult?: Record<string, unknown>;
  readonly lists: ListCache;
  private peer?: JsonRpcPeer;
  private built?: BuiltTransport;
  private readonly supervisor: UpstreamSupervisor;
  private readonly inbound: UpstreamInbound<Upstream>;
  private stopping = false;
  private readonly answers = new AnswerWatch();
  /** connect() is running: a close now is the start's failure, not a crash. */
  private connecting = false;
  private settledWaiters: (() => void)[] = [];
  private readonly log: Logger;

  constructor(
    readonly entry: ServerEntry,
    logger: Logger,
    private readonly listener: UpstreamListener = {},
    supervision: SupervisionOptions = DEFAULT_SUPERVISION,
    private readonly transportOptions: UpstreamTransportOptions = {},
  ) {
    this.log = logger.child(entry.id);
    this.supervisor = new UpstreamSupervisor(this, supervision, {
      log: this.log,
      setState: (s) => this.setState(s),
      drop: () => {
        this.stopping = true;
        return this.dropConnection();
      },
      clearLists: () => this.clearLists(),
    });
    this.state = entry.disabled ? 'disabled' : 'stopped';
    this.lists = new ListCache((m, p) => this.callOwn(m, p), this.log);
    this.inbound = new UpstreamInbound(this, listener, this.log);
  }

  get id(): string {
    return this.entry.id;
  }
  get transportKind(): 'stdio' | 'http' | 'sse' {
    return this.built?.kind ?? (this.entry.kind === 'stdio' ? 'stdio' : this.entry.type === 'sse' ? 'sse' : 'http');
  }
  get pid(): number | undefined {
    return this.built?.child?.pid;
  }
  get capabilities(): Record<string, unknown> {
    return (this.initResult?.capabilities as Record<string, unknown>) ?? {};
  }
  /** The server speaks 2026-07-28 (this connection: a restart probes again). */
  get speaks2026(): boolean {
    return this.built?.revision === '2026-07-28';
  }
  /** A modern server's resource subscriptions (protocol/rev2026-07-28/resourceListen.ts); undefined for a 2025 server. */
  get resourceListen(): ResourceListen2026 | undefined {
    return this.built?.resourceListen;
  }
  get isReady(): boolean {
    return this.state === 'ready';
  }
  /**
   * Settled = its first attempt is over: ready, failed, stopped, disabled, or waiting to retry
   * after a failure. A list never waits on a server already known to have failed.
   */
  get isSettled(): boolean {
    return this.state !== 'starting';
  }

  /** Starts (or restarts) the server; resolves when it is ready or has failed this attempt. */
  async start(): Promise<void> {
    if (this.entry.disabled) return;
    this.stopping = false;
    this.supervisor.cancel();
    this.setState(this.startedAt ? 'restarting' : 'starting');
    this.startedAt = new Date();
    this.readyAt = undefined;
    this.answers.reset();
    try {
      this.connecting = true;
      await this.connect().finally(() => (this.connecting = false));
      this.readyAt = new Date();
      this.lastError = undefined;
      this.httpStatus = undefined;
      this.setState('ready');
      this.log.info(`ready: ${this.lists.tools.length} tools`);
    } catch (err) {
      if (this.stopping) return;
      // A remote wrapper that gave up knows the real cause (HTTP status, refused...).
      const cause = this.built?.resilient?.failure ?? err;
      await this.dropConnection();
      this.supervisor.failed(`start failed: ${errorText(cause)}`, cause);
    }
  }

  /** Stops the server (its whole process tree for stdio) and cancels any restart. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.supervisor.halt();
    await this.dropConnection();
    if (!this.entry.disabled) this.setState('stopped');
  }

  /** Restart on demand (resets the failure count; one at a time): upstreamSupervisor.ts. */
  restart(): Promise<void> {
    return this.supervisor.restart();
  }

  /** Resolves once the server is settled, or after `timeoutMs`. */
  whenSettled(timeoutMs: number): Promise<void> {
    if (this.isSettled) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      timer.unref?.();
      const self = this;
      function done() {
        clearTimeout(timer);
        self.settledWaiters = self.settledWaiters.filter((w) => w !== done);
        resolve();
      }
      this.settledWaiters.push(done);
    });
  }

  /** Forwards a request to the server and resolves with its raw response. */
  forward(
    method: string,
    params: Record<string, unknown> | undefined,
    opts: RequestOptions,
    beforeSend?: (h: PendingHandle) => Record<string, unknown> | void,
  ): Promise<RpcResponse> {
    if (!this.peer || this.state !== 'ready') {
      return Promise.resolve({
        jsonrpc: '2.0',
        id: 0,
        error: {
          code: ErrorCode.ServerNotReady,
          message: this.log.secrets.mask(
            `server "${this.id}" is not ready (${this.state}${this.lastError ? `: ${this.lastError}` : ''})`,
          ),
        },
      });
    }
    return this.peer.request(method, params, opts, beforeSend).then((res) => this.noteAnswer(method, res));
  }

  /** A ready server whose calls keep timing out gets a lastError that says so (answerWatch.ts). */
  private noteAnswer(method: string, res: RpcResponse): RpcResponse {
    const change = this.answers.record(method, res);
    if (change === 'set' && this.state === 'ready') {
      if (this.lastError !== this.answers.note && !this.lastError?.startsWith('not answering'))
        this.log.warn(this.answers.note!);
      this.lastError = this.answers.note;
      this.listener.state?.(this);
    } else if (change === 'cleared' && this.lastError?.startsWith('not answering')) {
      this.lastError = undefined;
      this.log.info('answering again');
      this.listener.state?.(this);
    }
    return res;
  }

  /** Sends a notification; resolves once written (after 'drain' under backpressure), never rejects. */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.peer && this.state === 'ready' ? this.peer.notify(method, params) : Promise.resolve();
  }

  respond(id: RpcRequest['id'], result: Record<string, unknown>): void {
    void this.peer?.respond(id, result);
  }

  respondError(id: RpcRequest['id'], error: { code: number; message: string; data?: unknown }): void {
    void this.peer?.respondError(id, error);
  }

  status(sessions = 0): ServerStatus {
    const status = upstreamStatus(
      this,
      sessions,
      stderrNow(this.built?.child?.stderrTail(), this.lastStderr),
      this.log.secrets,
      this.built?.child?.launch,
    );
    return withSandbox(status, this.entry);
  }

  /** The last attempt's stderr, shown by status() while a new attempt has said nothing yet. */
  private lastStderr: string[] = [];

  private async connect(): Promise<void> {
    const startedAt = Date.now();
    const inject = this.transportOptions.transportFactory;
    const built: BuiltTransport = inject
      ? { transport: inject(this.entry), kind: this.transportKind }
      : await buildUpstreamTransport(this.entry, {
          logger: this.log,
          onresilientstate: (s, reason) => this.onResilientState(s, reason),
          maxMessageBytes: this.transportOptions.maxMessageBytes,
        });
    this.built = built;
    const peer = new JsonRpcPeer(built.transport);
    this.peer = peer;
    peer.onrequest = (req, related) => this.inbound.request(req, related);
    // The request a notification came with counts for a modern server only (a request-scoped log).
    peer.onnotification = (n, related) =>
      this.inbound.notification(n, built.revision === '2026-07-28' ? related : undefined);
    peer.onerror = (e) => this.log.debug(`transport error: ${e.message}`);
    peer.onclose = () => this.onClosed(peer);
    if (built.child) built.child.onexit = (info) => peer.setCloseReason(exitText(this.id, info.code, info.signal));
    const opts = {
      id: this.id,
      timeoutMs: this.entry.connectionTimeoutMs,
      startedAt,
      capabilities: declaredCapabilities(this.entry.clientCapabilities),
    };
    this.initResult = await revisionHandshake(peer, built, this.lists, this.entry, opts, this.log);
  }

  /** The tool list through its gate again, sessions told `list_changed` (tool pinning's accept and reject). */
  async regateTools(): Promise<void> {
    await this.lists.regate();
    this.listener.listChanged?.(this, 'tools');
  }

  private async callOwn(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (!this.peer) throw new Error('not connected');
    return this.peer.call(method, params, { timeoutMs: this.entry.timeoutMs });
  }

  private onResilientState(s: string, reason?: string): void {
    if (s === 'reconnecting' && this.state === 'ready') {
      this.lastError = reason;
      this.setState('restarting');
    } else if (s === 'connected' && this.state === 'restarting' && this.initResult && !this.connecting) {
      // Reconnected (initialize was replayed): the lists may have changed meanwhile. Not during
      // a start: its handshake lists (initResult is the last run's, perhaps of another era).
      this.lists
        .refreshAll(this.capabilities)
        .then(() => {
          this.readyAt = new Date();
          this.setState('ready');
          for (const k of ['tools', 'prompts', 'resources'] as const) this.listener.listChanged?.(this, k);
        })
        .catch((err) => this.log.warn(`refresh after reconnect failed: ${errorText(err)}`));
    }
  }

  private onClosed(peer: JsonRpcPeer): void {
    // While connecting, the handshake fails with this close and start() handles it.
    if (peer !== this.peer || this.stopping || this.connecting) return;
    const reason = this.built?.child?.exitInfo
      ? exitText(this.id, this.built.child.exitInfo.code, this.built.child.exitInfo.signal)
      : `server "${this.id}" closed the connection`;
    this.lastStderr = this.built?.child?.stderrTail() ?? [];
    // A remote wrapper closes itself only for a reason retrying cannot fix (a 401 on reconnect).
    const failure = this.built?.resilient?.failure;
    this.peer = undefined;
    this.built = undefined;
    if (failure) this.supervisor.failed(`connection failed: ${errorText(failure)}`, failure);
    else if (this.state === 'ready') this.supervisor.failed(reason);
  }

  /** Empties the cached lists, telling the listener when there were tools. */
  private clearLists(): void {
    const hadTools = this.lists.tools.length > 0;
    this.lists.clear();
    if (hadTools) for (const k of ['tools', 'prompts', 'resources'] as const) this.listener.listChanged?.(this, k);
  }

  private async dropConnection(): Promise<void> {
    const peer = this.peer;
    const built = this.built;
    this.peer = undefined;
    if (built?.child) this.lastStderr = built.child.stderrTail();
    this.built = undefined;
    if (peer) await peer.close().catch(() => undefined);
    else await built?.transport.close().catch(() => undefined);
  }

  private setState(s: ServerState): void {
    if (this.state === s) return;
    this.state = s;
    if (this.isSettled) for (const w of this.settledWaiters.splice(0)) w();
    this.listener.state?.(this);
  }
}
