/**
 * How the Activity view writes a call's figures: its outcome, its duration, its sizes and
 * its time. Text only; no DOM.
 */
import type { ActivityOutcome, ActivityRecord } from '../shared/activity.js';

export const OUTCOME_LABELS: Record<ActivityOutcome, string> = {
  ok: 'OK',
  'tool-error': 'Tool error',
  error: 'Error',
  cancelled: 'Cancelled',
  timeout: 'Timed out',
  denied: 'Denied',
};

/** `4 ms`, `0.3 ms`, `1.2 s`. */
export function durationText(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms > 0 && ms < 1) return `${ms.toFixed(1)} ms`;
  return `${Math.round(ms)} ms`;
}

/** `512 B`, `2.1 kB`, `3.4 MB`; a dash when the transport did not say. */
export function bytesText(n: number | undefined): string {
  if (n === undefined) return '\u2014';
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}

/** The time of day a call arrived, `14:03:07`. */
export function timeText(at: string): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime())
    ? at
    : d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
}

/** Who made the call: the client's name, else its session. */
export function agentText(r: ActivityRecord): string {
  return r.client ?? `session ${r.session}`;
}

/** The outcome as shown in a row: `Error -32602`, `Timed out`. */
export function outcomeText(r: ActivityRecord): string {
  const label = OUTCOME_LABELS[r.outcome] ?? r.outcome;
  return r.outcome === 'error' && r.error ? `${label} ${r.error.code}` : label;
}
