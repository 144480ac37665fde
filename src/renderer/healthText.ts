/**
 * A server's health figures (`ServerStatus.health`, src/shared/activity.ts) as the card's
 * "Calls (5 min)" line: calls, errors, p50 and p95 latency. Text only; no DOM.
 */
import type { ServerHealth } from '../shared/activity.js';

function ms(v: number): string {
  return v >= 1000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`;
}

/** e.g. `12 · 1 error · p50 4 ms, p95 30 ms`; a dash before the first call. */
export function healthText(h: ServerHealth | undefined): string {
  if (!h || h.calls === 0) return '\u2014';
  const errors = h.errors === 0 ? 'no errors' : `${h.errors} error${h.errors === 1 ? '' : 's'}`;
  const latency =
    h.p50Ms !== undefined && h.p95Ms !== undefined ? ` \u00b7 p50 ${ms(h.p50Ms)}, p95 ${ms(h.p95Ms)}` : '';
  return `${h.calls} \u00b7 ${errors}${latency}`;
}
