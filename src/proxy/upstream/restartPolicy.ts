import { Backoff } from '../../shared/backoff.js';

/**
 * When a server that exited (or failed to start) is started again: backoff doubling from
 * `initialDelayMs` to `maxDelayMs`, `failed` after `maxAttempts` consecutive failures, and a
 * run of `stableAfterMs` forgives earlier failures.
 */
export interface SupervisionOptions {
  /** Restart after an unexpected exit or a failed start. */
  restart: boolean;
  /** Attempts in total, the first start included: this many consecutive failures mark the server failed (src/shared/backoff.ts). */
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
  private readonly backoff: Backoff;

  constructor(readonly options: SupervisionOptions = DEFAULT_SUPERVISION) {
    this.backoff = new Backoff(options);
  }

  /** Forgets earlier failures (a restart asked for by the user). */
  reset(): void {
    this.backoff.reset();
  }

  /**
   * Records a failure of a run that became ready at `readyAt` (if it did); returns the delay
   * before the next attempt, or undefined when the server should be marked failed.
   */
  next(readyAt?: Date): { delayMs: number; attempt: number } | undefined {
    const ranFor = readyAt ? Date.now() - readyAt.getTime() : 0;
    if (ranFor >= this.options.stableAfterMs) this.backoff.reset();
    const delayMs = this.backoff.fail();
    if (!this.options.restart || delayMs === undefined) return undefined;
    return { delayMs, attempt: this.backoff.failures + 1 };
  }
}
