/**
 * Whether an activity record passes `/activity`'s filters: the one rule the bridge's ring,
 * its stream and the panel's live rows share. Plain TypeScript: no Node or browser API.
 */
import type { ActivityQuery, ActivityRecord } from './activity.js';

/** Whether `r` passes the filters (`text` already lower-cased). */
export function matches(r: ActivityRecord, q: ActivityQuery, text?: string): boolean {
  if (q.server !== undefined && r.server !== q.server) return false;
  if (q.client !== undefined && r.client !== q.client) return false;
  if (q.outcome !== undefined && r.outcome !== q.outcome) return false;
  if (text) {
    const hay = [r.method, r.name, r.via, r.server, r.client, r.error?.message];
    if (!hay.some((h) => h !== undefined && h.toLowerCase().includes(text))) return false;
  }
  return true;
}
