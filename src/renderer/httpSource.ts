/**
 * The status source over the bridge's HTTP API, so the panel also works in any browser:
 * `GET /status`, `GET /events` (SSE) and `POST /servers/<id>/restart`, each with
 * `Authorization: Bearer <token>`. The event stream is read with fetch() rather than
 * EventSource so the token travels in a header, never in a URL.
 */
import type { RestartResult, SignInResult } from '../shared/ipcContract.js';
import type { RuntimeStatus } from '../shared/status.js';
import type { ConnectionState, StatusSource } from './dataSource.js';
import { SseParser } from '../shared/sseParser.js';
import { Backoff } from '../shared/backoff.js';
import { HttpManagement } from './management.js';
import { HttpActivityFeed } from './activityFeed.js';

/** Options of {@link HttpStatusSource}; durations in milliseconds. */
export interface HttpSourceOptions {
  /** Origin of the bridge, e.g. `http://127.0.0.1:18099`. */
  baseUrl: string;
  /** The bridge's bearer token; without one every request would be refused. */
  token: string | undefined;
  /** First reconnect delay, doubled after each failure. Default 500. */
  initialBackoffMs?: number;
  /** Cap on the reconnect delay. Default 5000 (the bridge is on loopback). */
  maxBackoffMs?: number;
  /** Consecutive failures after which the link is reported `down` rather than `reconnecting`. Default 3. */
  downAfterFailures?: number;
  /** No byte (not even a keep-alive comment) for this long means a dead link. Default 60000. */
  idleTimeoutMs?: number;
}

/** A failure that retrying cannot fix (no token, token refused). */
class FatalLinkError extends Error {}

const TOKEN_STORAGE_KEY = 'qiming-mcp-bridge-token';

/**
 * Takes the token from the URL fragment (`#token=<t>`) and removes it from the visible URL
 * (address bar, history, screenshots). It is kept in sessionStorage so a reload of this tab
 * still works; nothing else sees it and it is never logged.
 */
export function takeTokenFromLocation(win: Window): string | undefined {
  const params = new URLSearchParams(win.location.hash.replace(/^#/, ''));
  const fromHash = params.get('token') ?? undefined;
  if (fromHash !== undefined) {
    params.delete('token');
    const rest = params.toString();
    win.history.replaceState(
      win.history.state,
      '',
      win.location.pathname + win.location.search + (rest ? `#${rest}` : ''),
    );
    try {
      win.sessionStorage.setItem(TOKEN_STORAGE_KEY, fromHash);
    } catch {
      // Storage can be disabled; the token then lasts for this page load only.
    }
    return fromHash;
  }
  try {
    return win.sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/** {@link StatusSource} over the bridge's HTTP API, with its own reconnecting event stream. */
export class HttpStatusSource implements StatusSource {
  private readonly statusListeners = new Set<(s: RuntimeStatus) => void>();
  private readonly connectionListeners = new Set<(state: ConnectionState, detail?: string) => void>();
  private connection: { state: ConnectionState; detail?: string } | undefined;
  private running = false;
  /** Bumped by every run(), so a loop still unwinding after stop() cannot run on beside a new one. */
  private generation = 0;
  private abort: AbortController | undefined;
  private wake: (() => void) | undefined;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly downAfterFailures: number;
  private readonly idleTimeoutMs: number;
  /** The bridge's management routes, same origin and token. */
  readonly management: HttpManagement;
  /** `/activity` and its stream, same origin and token. */
  readonly activity: HttpActivityFeed;

  constructor(private readonly options: HttpSourceOptions) {
    this.management = new HttpManagement(options.baseUrl, options.token);
    this.activity = new HttpActivityFeed(options.baseUrl, options.token);
    this.initialBackoffMs = options.initialBackoffMs ?? 500;
    this.maxBackoffMs = options.maxBackoffMs ?? 5000;
    this.downAfterFailures = options.downAfterFailures ?? 3;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  }

  async getStatus(): Promise<RuntimeStatus> {
    const res = await fetch(this.url('/status'), { headers: this.headers(), cache: 'no-store' });
    if (!res.ok) throw new Error(`GET /status answered HTTP ${res.status}`);
    return (await res.json()) as RuntimeStatus;
  }

  onStatus(cb: (s: RuntimeStatus) => void): () => void {
    this.statusListeners.add(cb);
    if (!this.running) void this.run();
    return () => {
      this.statusListeners.delete(cb);
      if (this.statusListeners.size === 0) this.stop();
    };
  }

  onConnection(cb: (state: ConnectionState, detail?: string) => void): () => void {
    this.connectionListeners.add(cb);
    if (this.connection) cb(this.connection.state, this.connection.detail);
    return () => this.connectionListeners.delete(cb);
  }

  restart(id: string): Promise<RestartResult> {
    return this.serverAction(id, 'restart');
  }

  /** The bridge opens the system browser itself (the panel may be a tab of it). */
  signIn(id: string): Promise<SignInResult> {
    return this.serverAction(id, 'sign-in');
  }

  signOut(id: string): Promise<RestartResult> {
    return this.serverAction(id, 'sign-out');
  }

  /** `POST /servers/<id>/pins` (the browser adds the Origin the route requires). */
  decidePin(id: string, tool: string, decision: 'accept' | 'reject', hash: string): Promise<RestartResult> {
    return this.serverAction(id, 'pins', JSON.stringify({ tool, decision, hash }));
  }

  private async serverAction(id: string, action: string, payload?: string): Promise<SignInResult> {
    let res: Response;
    try {
      res = await fetch(this.url(`/servers/${encodeURIComponent(id)}/${action}`), {
        method: 'POST',
        headers: payload === undefined ? this.headers() : { ...this.headers(), 'Content-Type': 'application/json' },
        ...(payload === undefined ? {} : { body: payload }),
      });
    } catch (err) {
      return { ok: false, error: `The bridge could not be reached (${errorMessage(err)}).` };
    }
    const body = (await res.json().catch(() => undefined)) as Partial<SignInResult> | undefined;
    if (body && typeof body.ok === 'boolean')
      return body.ok
        ? { ok: true, ...(typeof body.url === 'string' ? { url: body.url } : {}) }
        : { ok: false, error: body.error ?? `HTTP ${res.status}` };
    return res.ok ? { ok: true } : { ok: false, error: `The bridge answered HTTP ${res.status}.` };
  }

  /** Stops the event stream (listeners stay registered but receive nothing more). */
  stop(): void {
    this.running = false;
    this.abort?.abort();
    this.wake?.();
  }

  private async run(): Promise<void> {
    this.running = true;
    const generation = ++this.generation;
    const live = () => this.running && generation === this.generation;
    const backoff = new Backoff({ initialDelayMs: this.initialBackoffMs, maxDelayMs: this.maxBackoffMs });
    let opened = 0;
    while (live()) {
      let reason: string;
      try {
        await this.streamOnce(opened > 0, () => {
          backoff.reset();
          opened++;
        });
        reason = 'the event stream ended';
      } catch (err) {
        if (!live()) break;
        if (err instanceof FatalLinkError) {
          this.running = false;
          this.setConnection('down', err.message);
          break;
        }
        reason = errorMessage(err);
      }
      if (!live()) break;
      const delay = backoff.fail()!; // no maxAttempts: never undefined
      const failures = backoff.failures;
      const state: ConnectionState = failures >= this.downAfterFailures ? 'down' : 'reconnecting';
      this.setConnection(state, `${reason}; retrying in ${Math.ceil(delay / 1000)} s (attempt ${failures + 1})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** One connection of the event stream, until it ends or fails. `reconnect`: not the first one. */
  private async streamOnce(reconnect: boolean, onOpen: () => void): Promise<void> {
    if (!this.options.token) {
      throw new FatalLinkError('No access token. Open this panel from the app (its link carries the token).');
    }
    const ctl = new AbortController();
    this.abort = ctl;
    const res = await fetch(this.url('/events'), {
      headers: { ...this.headers(), Accept: 'text/event-stream' },
      cache: 'no-store',
      signal: ctl.signal,
    });
    if (res.status === 401 || res.status === 403) {
      throw new FatalLinkError(
        'The bridge refused the access token (it changes each time the bridge starts). Reopen this panel from the app.',
      );
    }
    if (!res.ok || !res.body) throw new Error(`GET /events answered HTTP ${res.status}`);
    onOpen();
    this.setConnection('connected');

    let sawEvent = false;
    const parser = new SseParser((e) => {
      if (e.event !== 'status') return;
      let status: RuntimeStatus;
      try {
        status = JSON.parse(e.data) as RuntimeStatus;
      } catch {
        return; // a malformed event is skipped; the next one carries the full status again
      }
      sawEvent = true;
      this.emit(status);
    });
    // After a reconnect the page may be stale and the bridge may not start the stream
    // with a snapshot: fetch one, but never let it overwrite a newer event. (The first
    // load is the caller's getStatus().)
    if (reconnect) {
      this.getStatus().then(
        (s) => {
          if (!sawEvent && this.abort === ctl && !ctl.signal.aborted) this.emit(s);
        },
        () => undefined,
      );
    }

    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let idle: ReturnType<typeof setTimeout> | undefined;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => ctl.abort(), this.idleTimeoutMs);
    };
    try {
      armIdle();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        armIdle();
        parser.push(value);
      }
    } catch (err) {
      throw ctl.signal.aborted && this.running ? new Error('no data from the bridge for too long') : err;
    } finally {
      clearTimeout(idle);
      ctl.abort();
    }
  }

  private emit(status: RuntimeStatus): void {
    for (const cb of [...this.statusListeners]) cb(status);
  }

  private setConnection(state: ConnectionState, detail?: string): void {
    this.connection = detail === undefined ? { state } : { state, detail };
    for (const cb of [...this.connectionListeners]) cb(state, detail);
  }

  private url(path: string): string {
    return this.options.baseUrl.replace(/\/+$/, '') + path;
  }

  private headers(): Record<string, string> {
    return this.options.token ? { Authorization: `Bearer ${this.options.token}` } : {};
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
