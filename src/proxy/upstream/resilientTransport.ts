/**
 * ResilientTransportWrapper: an SDK `Transport` around a factory of transports that keeps a
 * remote connection alive. Heartbeat pings (heartbeat.ts), an
 * immediate reconnect on close or error, exponential backoff (1 s doubling to 60 s, no
 * retry limit, reset on success), the client's `initialize` replayed on every reconnect,
 * and up to 100 messages queued while reconnecting.
 *
 * Requests that were in flight when the connection dropped are answered with a
 * ConnectionClosed error (they may or may not have run upstream); messages whose send
 * failed are put back at the head of the queue and delivered after the reconnect.
 *
 * Reconnecting is only for a connection that worked: until the caller's first `initialize`
 * is answered, any failure (refused, HTTP error, closed) closes the wrapper, with the cause
 * in `failure`, and the caller's own supervision decides. A 401/403 also ends it later:
 * the same credentials cannot succeed on a retry; so does a replayed `initialize` refused
 * the 2026-07-28 way (the server was upgraded: the upstream's restart probes the era again).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Backoff } from '../../shared/backoff.js';
import {
  ErrorCode,
  isRequest,
  isResponse,
  methodOf,
  type RequestId,
  type RpcMessage,
  type RpcRequest,
} from '../jsonrpc/jsonRpc.js';
import { errorText } from '../common/logger.js';
import { withDeadline } from '../common/deadline.js';
import { isAuthRefusal } from './upstreamErrors.js';
import { refusedAs2026 } from '../protocol/rev2026-07-28/vocabulary.js';
import { Heartbeat } from './heartbeat.js';
import { INTERNAL_PREFIX, InternalRequests } from './internalRequests.js';
import {
  resolveResilientOptions,
  type ResilientOptions,
  type ResilientState,
  type ResolvedResilientOptions,
} from './resilientOptions.js';

export type { ResilientOptions, ResilientState } from './resilientOptions.js';

interface Queued {
  msg: JSONRPCMessage;
  resolve: () => void;
  reject: (e: Error) => void;
}

export class ResilientTransportWrapper implements Transport {
  onmessage?: Transport['onmessage'];
  onerror?: (e: Error) => void;
  onclose?: () => void;

  private _state: ResilientState = 'idle';
  private inner?: Transport;
  private generation = 0;
  private queue: Queued[] = [];
  private readonly inFlight = new Set<RequestId>();
  /** Requests whose send has not completed yet: a failure puts them back in the queue. */
  private readonly sending = new Set<RequestId>();
  private initRequest?: RpcRequest;
  private initializedSent = false;
  private initAnswered = false;
  /** The caller's initialize was answered once: from now on a lost connection is reconnected. */
  private established = false;
  private _failure?: Error;
  private readonly backoff: Backoff;
  private reconnectTimer?: NodeJS.Timeout;
  private readonly heartbeat: Heartbeat;
  private readonly internal = new InternalRequests();
  private readonly o: ResolvedResilientOptions;

  constructor(options: ResilientOptions) {
    this.o = resolveResilientOptions(options);
    this.backoff = new Backoff({ initialDelayMs: this.o.initialDelayMs, maxDelayMs: this.o.maxDelayMs });
    this.heartbeat = new Heartbeat({
      intervalMs: this.o.heartbeatIntervalMs,
      timeoutMs: this.o.heartbeatTimeoutMs,
      maxFailures: this.o.maxHeartbeatFailures,
      logger: this.o.logger,
      isConnected: () => this._state === 'connected',
      current: () => this.inner,
      ping: (t, timeoutMs) => this.internal.request(t, 'ping', undefined, timeoutMs),
      onDead: () => this.connectionLost('heartbeat failed'),
    });
  }

  get state(): ResilientState {
    return this._state;
  }

  get queued(): number {
    return this.queue.length;
  }

  /** Why the wrapper closed itself (a failure before the first initialize answer, or a 401/403). */
  get failure(): Error | undefined {
    return this._failure;
  }

  /** Connects once; rejects (and closes) if that first attempt fails. */
  async start(): Promise<void> {
    if (this._state !== 'idle') throw new Error('ResilientTransportWrapper already started');
    this.setState('connecting');
    await this.attempt(true);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as unknown as RpcMessage;
    if (this._state === 'closed') throw new Error('transport closed');
    const connected = this._state === 'connected' && this.inner !== undefined;
    if (isRequest(m) && m.method === 'initialize') {
      this.initRequest = m;
      this.initAnswered = false;
      // While disconnected, the replay on connect sends it and answers with this id.
      if (!connected) return;
    }
    if (methodOf(m) === 'notifications/initialized') {
      this.initializedSent = true;
      if (!connected) return;
    }
    if (connected) return this.sendNow(message);
    if (this.queue.length >= this.o.maxQueue) {
      throw new Error(`upstream is reconnecting and ${this.o.maxQueue} messages are already queued; request rejected`);
    }
    return new Promise<void>((resolve, reject) => this.queue.push({ msg: message, resolve, reject }));
  }

  async close(): Promise<void> {
    if (this._state === 'closed') return;
    this.setState('closed');
    this.clearTimers();
    for (const q of this.queue.splice(0)) q.reject(new Error('transport closed'));
    this.internal.failAll('transport closed');
    const inner = this.inner;
    this.inner = undefined;
    this.generation++;
    await inner?.close().catch(() => undefined);
    this.onclose?.();
  }

  private setState(s: ResilientState, reason?: string): void {
    if (this._state === s) return;
    this._state = s;
    this.o.onstatechange?.(s, reason);
  }

  private async sendNow(message: JSONRPCMessage): Promise<void> {
    const m = message as unknown as RpcMessage;
    const id = isRequest(m) ? m.id : undefined;
    if (id !== undefined) this.sending.add(id);
    try {
      await this.inner!.send(message);
      // Still unanswered: from now on it is in flight on this connection.
      if (id !== undefined && this.sending.delete(id)) this.inFlight.add(id);
    } catch (err) {
      if (id !== undefined) this.sending.delete(id);
      if (this._state === 'closed') throw err;
      if (!this.isEstablished || isAuthRefusal(err)) {
        this.giveUp(err as Error);
        throw err;
      }
      const method = methodOf(m);
      const handshake = method === 'initialize' || method === 'notifications/initialized';
      if (handshake) {
        // The replay on the next connection sends these (and answers the initialize).
        if (method === 'initialize') this.initAnswered = false;
        this.connectionLost(`send failed: ${errorText(err)}`);
        return;
      }
      // Not delivered: keep it for the next connection instead of losing it.
      const p = new Promise<void>((resolve, reject) => this.queue.unshift({ msg: message, resolve, reject }));
      this.connectionLost(`send failed: ${errorText(err)}`);
      return p;
    }
  }

  private get isEstablished(): boolean {
    return this.established || this.o.retryBeforeEstablished;
  }

  /** Closes for good, keeping the cause: nothing to gain from retrying here. */
  private giveUp(err: Error): void {
    if (this._state === 'closed') return;
    this._failure = err;
    void this.close();
  }

  private async attempt(first = false): Promise<void> {
    const gen = ++this.generation;
    let t: Transport | undefined;
    try {
      t = await this.o.factory();
      this.wire(t, gen);
      this.inner = t;
      await withDeadline(
        t.start(),
        this.o.attemptTimeoutMs,
        `no answer to the connection within ${this.o.attemptTimeoutMs} ms`,
      );
      if (this.initRequest) await this.replayInitialize(t);
      if (gen !== this.generation || this._state === 'closed') return;
      this.setState('connected');
      this.backoff.reset();
      this.heartbeat.reset();
      this.o.logger?.debug('connected');
      await this.flush();
      this.heartbeat.schedule();
    } catch (err) {
      if (gen !== this.generation || this._state === 'closed') return;
      this.inner = undefined;
      await t?.close().catch(() => undefined);
      // A server that now speaks only 2026-07-28 refuses the replayed initialize: retrying cannot
      // help, the upstream's restart probes the era again (upstream/revisionConnect.ts).
      if ((first && !this.o.retryBeforeEstablished) || isAuthRefusal(err) || refusedAs2026(err)) {
        this.giveUp(err as Error);
        if (first) throw err;
        return;
      }
      this.scheduleReconnect(`connect failed: ${errorText(err)}`);
    }
  }

  private async replayInitialize(t: Transport): Promise<void> {
    const reply = await this.internal.request(t, 'initialize', this.initRequest!.params, this.o.attemptTimeoutMs);
    if ('error' in reply) {
      const { message, code } = (reply as { error: { message: string; code: number } }).error;
      throw Object.assign(new Error(`initialize refused: ${message}`), { code });
    }
    const version = (reply as { result?: { protocolVersion?: string } }).result?.protocolVersion;
    if (version) t.setProtocolVersion?.(version);
    if (!this.initAnswered) {
      // The caller's own initialize was waiting for this connection: answer it.
      this.initAnswered = true;
      this.onmessage?.({ ...(reply as object), id: this.initRequest!.id } as JSONRPCMessage);
      return;
    }
    if (this.initializedSent) await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
  }

  private wire(t: Transport, gen: number): void {
    t.onmessage = (message, extra) => {
      if (gen !== this.generation) return;
      const m = message as unknown as RpcMessage;
      if (isResponse(m) && m.id !== null) {
        if (typeof m.id === 'string' && m.id.startsWith(INTERNAL_PREFIX)) {
          this.internal.answer(m.id, m);
          return;
        }
        this.inFlight.delete(m.id);
        this.sending.delete(m.id);
        if (this.initRequest && m.id === this.initRequest.id) {
          this.initAnswered = true;
          if ('result' in m) this.established = true;
        }
      }
      this.onmessage?.(message, extra);
    };
    t.onerror = (e) => {
      if (gen !== this.generation) return;
      this.onerror?.(e);
      if (this._state === 'connected') this.connectionLost(`transport error: ${e.message}`, e);
    };
    t.onclose = () => {
      if (gen !== this.generation) return;
      if (this._state === 'connected') this.connectionLost('transport closed');
    };
  }

  /** Drops the current connection, fails in-flight requests, and reconnects at once. */
  private connectionLost(reason: string, cause?: Error): void {
    if (this._state !== 'connected') return;
    if (!this.isEstablished) return this.giveUp(cause ?? new Error(reason));
    const old = this.inner;
    this.inner = undefined;
    this.generation++;
    this.clearTimers();
    void old?.close().catch(() => undefined);
    for (const id of [...this.inFlight]) {
      this.inFlight.delete(id);
      this.onmessage?.({
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.ConnectionClosed, message: `connection to upstream lost (${reason}); reconnecting` },
      } as JSONRPCMessage);
    }
    this.o.logger?.warn(`connection lost (${reason}); reconnecting`);
    this.setState('reconnecting', reason);
    void this.attempt();
  }

  private scheduleReconnect(reason: string): void {
    this.setState('reconnecting', reason);
    const delay = this.backoff.fail()!; // no maxAttempts: never undefined
    this.o.logger?.warn(`${reason}; retrying in ${delay} ms`);
    this.reconnectTimer = setTimeout(() => void this.attempt(), delay);
  }

  private async flush(): Promise<void> {
    while (this.queue.length && this._state === 'connected' && this.inner) {
      const q = this.queue.shift()!;
      this.sendNow(q.msg).then(q.resolve, q.reject);
    }
  }

  private clearTimers(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.heartbeat.cancel();
    this.reconnectTimer = undefined;
  }
}
