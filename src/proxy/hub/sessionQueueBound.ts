/**
 * How much one downstream session may have queued toward one shared upstream: its
 * notifications not yet written to the server (still waiting behind its stdin's
 * backpressure) plus its requests not yet answered. Past the cap the session's
 * notifications to that server are dropped (one warn line per 5 s with a count) and its
 * requests are refused with QueueFull, so one session's burst cannot put thousands of
 * messages ahead of every other session's calls. Dropping, not pausing the session's input:
 * every kind of downstream transport (stdio, stream link, streamable HTTP, SSE) can do it,
 * and a client that floods a shared server is the one to bear it.
 */
import type { Logger } from '../common/logger.js';
import { ErrorCode, type RpcErrorObject } from '../jsonrpc/jsonRpc.js';

/** Messages one session may have queued toward one upstream. */
export const MAX_QUEUED_PER_UPSTREAM = 256;
const WARN_EVERY_MS = 5_000;

export class SessionQueueBound<U extends { readonly id: string }> {
  private readonly queued = new Map<U, number>();
  private dropped = 0;
  private lastWarn = 0;

  constructor(
    private readonly logger: Logger,
    private readonly cap = MAX_QUEUED_PER_UPSTREAM,
  ) {}

  /** True when the session already has `cap` messages queued toward `u`. */
  full(u: U): boolean {
    return (this.queued.get(u) ?? 0) >= this.cap;
  }

  /** Counts `settled` as queued toward `u` until it settles. */
  track(u: U, settled: Promise<unknown>): void {
    this.queued.set(u, (this.queued.get(u) ?? 0) + 1);
    const release = (): void => {
      const n = (this.queued.get(u) ?? 1) - 1;
      if (n > 0) this.queued.set(u, n);
      else this.queued.delete(u);
    };
    settled.then(release, release);
  }

  /** A notification dropped because the queue toward `u` was full; warns at most every 5 s (with the count since the last warning). */
  drop(u: U, method: string): void {
    this.dropped++;
    const now = Date.now();
    if (now - this.lastWarn < WARN_EVERY_MS) return;
    const since = this.lastWarn === 0 ? '' : ` (${this.dropped} dropped since the last warning)`;
    this.lastWarn = now;
    this.dropped = 0;
    this.logger.warn(
      `a session has ${this.cap} messages queued toward server "${u.id}": dropping its notifications (${method}) until the server catches up${since}`,
    );
  }

  /** The error a request gets while the queue toward `u` is full. */
  fullError(u: U): RpcErrorObject {
    return {
      code: ErrorCode.QueueFull,
      message: `server "${u.id}" queue is full: this session already has ${this.cap} messages waiting for it; retry later`,
    };
  }
}
