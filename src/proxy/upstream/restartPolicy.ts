/**
 * When a server that exited (or failed to start) is started again: backoff doubling from
 * `initialDelayMs` to `maxDelayMs`, `failed` after `maxAttempts` consecutive failures, and a
 * run of `stableAfterMs` forgives earlier failures.
 */
export interface SupervisionOptions {
  /** Restart after an unexpected exit or a failed start. */
  restart: boolean;
  /** Consecutive failures after which the server is marked failed. */
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  /** A run at least this long resets the failure count. */
  stableAfterMs: number;
}

export const DEFAULT_SUPERVISION: SupervisionOptions = {
  restart: true,
  maxAttempts: 5,
  initialDelayMs: 1_000,
  maxDelayMs: 60_000,
  stableAfterMs: 30_000,
};

export class RestartPolicy {
  private failures = 0;

  constructor(readonly options: SupervisionOptions = DEFAULT_SUPERVISION) {}

  /** Forgets earlier failures (a restart asked for by the user). */
  reset(): void {
    this.failures = 0;
  }

  /**
   * Records a failure of a run that became ready at `readyAt` (if it did); returns the delay
   * before the next attempt, or undefined when the server should be marked failed.
   */
  next(readyAt?: Date): { delayMs: number; attempt: number } | undefined {
    const ranFor = readyAt ? Date.now() - readyAt.getTime() : 0;
    if (ranFor >= this.options.stableAfterMs) this.failures = 0;
    this.failures++;
    if (!this.options.restart || this.failures >= this.options.maxAttempts) return undefined;
    const delayMs = Math.min(this.options.initialDelayMs * 2 ** (this.failures - 1), this.options.maxDelayMs);
    return { delayMs, attempt: this.failures + 1 };
  }
}
