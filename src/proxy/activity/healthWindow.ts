/**
 * A server's calls over the last minutes, for `ServerStatus.health`: count, errors, p50 and
 * p95 latency and the last call's time. Memory is bounded: at most `maxSamples` durations
 * per server are kept (the oldest dropped first), and those past the window are pruned as
 * they are read or added.
 */
import type { ActivityOutcome, ServerHealth } from '../../shared/activity.js';

export const HEALTH_WINDOW_MS = 5 * 60_000;
export const MAX_HEALTH_SAMPLES = 1_024;

interface Samples {
  /** Time of each call's end (ms) and its duration and whether it failed, oldest first, as a ring. */
  at: number[];
  ms: number[];
  bad: boolean[];
  lastAt: number;
}

export class HealthWindow {
  private readonly servers = new Map<string, Samples>();

  constructor(
    readonly windowMs = HEALTH_WINDOW_MS,
    readonly maxSamples = MAX_HEALTH_SAMPLES,
    private readonly now: () => number = Date.now,
  ) {}

  add(server: string, durationMs: number, outcome: ActivityOutcome): void {
    let s = this.servers.get(server);
    if (!s) this.servers.set(server, (s = { at: [], ms: [], bad: [], lastAt: 0 }));
    const t = this.now();
    s.at.push(t);
    s.ms.push(durationMs);
    s.bad.push(outcome !== 'ok' && outcome !== 'cancelled');
    s.lastAt = t;
    if (s.at.length > this.maxSamples) this.cut(s, s.at.length - this.maxSamples);
  }

  /** The figures of `server`, or undefined when it never had a call. */
  of(server: string): ServerHealth | undefined {
    const s = this.servers.get(server);
    if (!s) return undefined;
    const from = this.now() - this.windowMs;
    let old = 0;
    while (old < s.at.length && s.at[old] < from) old++;
    if (old > 0) this.cut(s, old);
    const sorted = [...s.ms].sort((a, b) => a - b);
    return {
      windowMs: this.windowMs,
      calls: s.ms.length,
      errors: s.bad.reduce((n, b) => n + (b ? 1 : 0), 0),
      ...(sorted.length > 0 ? { p50Ms: percentile(sorted, 0.5), p95Ms: percentile(sorted, 0.95) } : {}),
      lastCallAt: new Date(s.lastAt).toISOString(),
    };
  }

  /** A removed server's figures go with it. */
  forget(server: string): void {
    this.servers.delete(server);
  }

  private cut(s: Samples, n: number): void {
    s.at.splice(0, n);
    s.ms.splice(0, n);
    s.bad.splice(0, n);
  }
}

/** The nearest-rank percentile of ascending `sorted` (not empty), rounded to 0.1 ms. */
export function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return Math.round(sorted[i] * 10) / 10;
}
