/**
 * A rate limit for log lines from one source (a server's stderr, its stdout garbage): a
 * token bucket of `burst` lines refilled at `perSecond`. Lines over the budget are counted,
 * and at most once a second `report(n)` says how many were left out.
 */

/** How long suppressed lines are counted before the count is reported. */
const REPORT_EVERY_MS = 1000;

export class LineBudget {
  private tokens: number;
  private last = Date.now();
  private suppressed = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly report: (suppressed: number) => void,
  ) {
    this.tokens = burst;
  }

  /** True when one more line may be logged now; otherwise it is counted as suppressed. */
  allow(): boolean {
    if (this.tokens < this.burst) {
      const now = Date.now();
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.perSecond) / 1000);
      this.last = now;
    } else {
      this.last = Date.now();
    }
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    if (this.suppressed++ === 0) {
      this.timer = setTimeout(() => this.flush(), REPORT_EVERY_MS);
      this.timer.unref?.();
    }
    return false;
  }

  /** Reports the lines suppressed so far, if any (also called by the timer). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const n = this.suppressed;
    this.suppressed = 0;
    if (n > 0) this.report(n);
  }
}
