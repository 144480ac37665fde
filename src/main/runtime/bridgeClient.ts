/**
 * The runtime's HTTP client of one bridge: `GET /status`, `POST /servers/<id>/restart`
 * (and `/sign-in`, `/sign-out`), `POST /config/reload`, `GET /agents/arrivals/<key>`, and
 * the `GET /events` SSE stream read with fetch streaming (Node's fetch; no EventSource, which
 * cannot send the `Authorization` header). The stream reconnects until stopped: it is opened
 * before the bridge listens (start-up progress) and must survive a dropped connection.
 */
import type { ConfigReloadResult, RuntimeStatus } from '../../shared/status.js';
import type { RestartResult, SignInResult } from '../../shared/ipcContract.js';
import { SseParser } from '../../shared/sseParser.js';
import { errorMessage } from '../logs/runtimeLogger.js';

export interface BridgeClientOptions {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  token: string;
  /** Per-request timeout for `/status` and restart. Default 5000 ms. */
  timeoutMs?: number;
}

/** Options of {@link BridgeClient.subscribe}. */
export interface StatusStreamOptions {
  onStatus: (status: RuntimeStatus) => void;
  /** Connection failures (expected while the bridge is still binding its port). */
  onError?: (err: Error) => void;
  /** Delay before reconnecting. Default 100 ms. */
  retryMs?: number;
}

/** Talks to one bridge instance. */
export class BridgeClient {
  private readonly timeoutMs: number;

  constructor(private readonly opts: BridgeClientOptions) {
    this.timeoutMs = opts.timeoutMs ?? 5000;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { Authorization: `Bearer ${this.opts.token}`, ...extra };
  }

  /** `GET /status`. */
  async getStatus(): Promise<RuntimeStatus> {
    const res = await fetch(`${this.opts.baseUrl}/status`, {
      headers: this.headers(),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!res.ok) throw new Error(`GET /status answered ${res.status}`);
    return (await res.json()) as RuntimeStatus;
  }

  /** `POST /servers/<id>/restart`; expected failures come back as `{ ok: false, error }`. */
  restart(id: string): Promise<RestartResult> {
    return this.serverAction(id, 'restart');
  }

  /** `POST /servers/<id>/sign-in` with `{"open": false}`: the runtime opens the URL itself. */
  signIn(id: string): Promise<SignInResult> {
    return this.serverAction(id, 'sign-in', { open: false });
  }

  signOut(id: string): Promise<RestartResult> {
    return this.serverAction(id, 'sign-out');
  }

  /** `POST /servers/<id>/pins`, with the bridge's own origin (the route refuses a write without one). */
  decidePin(id: string, tool: string, decision: 'accept' | 'reject', hash: string): Promise<RestartResult> {
    return this.serverAction(id, 'pins', { tool, decision, hash }, { Origin: this.opts.baseUrl });
  }

  private async serverAction(
    id: string,
    action: string,
    body?: object,
    extra: Record<string, string> = {},
  ): Promise<SignInResult> {
    try {
      const res = await fetch(`${this.opts.baseUrl}/servers/${encodeURIComponent(id)}/${action}`, {
        method: 'POST',
        headers: this.headers({ ...(body ? { 'Content-Type': 'application/json' } : {}), ...extra }),
        body: body ? JSON.stringify(body) : undefined,
        // A sign-in answers once the authorization server named its page (discovery, registration).
        signal: AbortSignal.timeout(action === 'sign-in' ? Math.max(this.timeoutMs, 30_000) : this.timeoutMs),
      });
      const answer = (await res.json().catch(() => ({}))) as Partial<SignInResult>;
      if (res.ok) return typeof answer.url === 'string' ? { ok: true, url: answer.url } : { ok: true };
      return { ok: false, error: answer.error ?? `${action} answered ${res.status}` };
    } catch (err) {
      return { ok: false, error: errorMessage(err) };
    }
  }

  /**
   * `POST /config/reload`: the bridge re-reads its config file and applies the difference.
   * Resolves with its answer; `undefined` when the bridge did not answer one (unreachable,
   * or a bridge without the route), so the caller can fall back to a restart.
   */
  async reload(): Promise<ConfigReloadResult | undefined> {
    try {
      const res = await fetch(`${this.opts.baseUrl}/config/reload`, {
        method: 'POST',
        headers: this.headers(),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (res.status !== 200 && res.status !== 422) return undefined;
      return (await res.json()) as ConfigReloadResult;
    } catch {
      return undefined;
    }
  }

  /**
   * `GET /agents/arrivals/<key>?waitMs=`: whether a connection carrying the ACP session key
   * `key` reached the bridge within `waitMs`. False as well when the bridge did not answer.
   */
  async agentArrived(key: string, waitMs: number): Promise<boolean> {
    try {
      const res = await fetch(
        `${this.opts.baseUrl}/agents/arrivals/${encodeURIComponent(key)}?waitMs=${Math.max(0, Math.round(waitMs))}`,
        {
          headers: this.headers(),
          signal: AbortSignal.timeout(waitMs + this.timeoutMs),
        },
      );
      if (!res.ok) return false;
      return ((await res.json()) as { arrived?: unknown }).arrived === true;
    } catch {
      return false;
    }
  }

  /**
   * Follows `/events`, calling `onStatus` for every `status` event (the first one is the
   * current status). Reconnects after `retryMs` whenever the stream fails or ends.
   * Returns the function that stops it.
   */
  subscribe(options: StatusStreamOptions): () => void {
    const controller = new AbortController();
    const retryMs = options.retryMs ?? 100;
    const loop = async () => {
      while (!controller.signal.aborted) {
        try {
          await this.readEvents(controller.signal, options.onStatus);
        } catch (err) {
          if (controller.signal.aborted) return;
          options.onError?.(err instanceof Error ? err : new Error(String(err)));
        }
        if (controller.signal.aborted) return;
        await new Promise((r) => setTimeout(r, retryMs));
      }
    };
    void loop();
    return () => controller.abort();
  }

  private async readEvents(signal: AbortSignal, onStatus: (s: RuntimeStatus) => void): Promise<void> {
    const res = await fetch(`${this.opts.baseUrl}/events`, {
      headers: this.headers({ Accept: 'text/event-stream' }),
      signal,
    });
    if (!res.ok || !res.body) throw new Error(`GET /events answered ${res.status}`);
    const parser = new SseParser(({ event, data }) => {
      if (event !== 'status') return;
      try {
        onStatus(JSON.parse(data) as RuntimeStatus);
      } catch {
        // A malformed event is skipped; the next one carries the whole status again.
      }
    });
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      parser.push(decoder.decode(chunk, { stream: true }));
    }
  }
}
