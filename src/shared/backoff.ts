/**
 * Exponential backoff, the one copy used by every layer (the proxy's restart policy and
 * reconnecting transport, the Electron runtime's bridge restarts, the panel's reconnect):
 * after the n-th consecutive failure the next attempt waits
 * `min(initialDelayMs * 2^(n-1), maxDelayMs)`.
 *
 * `maxAttempts` has one meaning everywhere: the number of attempts in total, the first one
 * included. After `maxAttempts` consecutive failures `fail()` answers undefined (give up);
 * so `maxAttempts: 5` is one start and at most four retries. Without it, never give up.
 *
 * Plain TypeScript, no node:* import: src/renderer uses it too.
 */
export interface BackoffOptions {
  initialDelayMs: number;
  maxDelayMs: number;
  /** Attempts in total, the first included, before giving up; undefined: retry forever. */
  maxAttempts?: number;
}

/** The delay before the next attempt after `failures` (>= 1) consecutive failures. */
export function backoffDelay(failures: number, initialDelayMs: number, maxDelayMs: number): number {
  return Math.min(initialDelayMs * 2 ** (failures - 1), maxDelayMs);
}

export class Backoff {
  private count = 0;

  constructor(readonly options: BackoffOptions) {}

  /** Consecutive failures since the last reset. */
  get failures(): number {
    return this.count;
  }

  /** Forgets earlier failures (a success, a long enough run, a restart asked for). */
  reset(): void {
    this.count = 0;
  }

  /**
   * Records one failed attempt; answers the delay before the next attempt, or undefined
   * when `maxAttempts` attempts have now failed in a row.
   */
  fail(): number | undefined {
    this.count++;
    const { maxAttempts, initialDelayMs, maxDelayMs } = this.options;
    if (maxAttempts !== undefined && this.count >= maxAttempts) return undefined;
    return backoffDelay(this.count, initialDelayMs, maxDelayMs);
  }
}
