/**
 * The last records, bounded by count and by an estimate of their bytes (the oldest go
 * first), read newest first in pages with filters (`/activity`, the IPC channel).
 */
import type { ActivityPage, ActivityQuery, ActivityRecord } from '../../shared/activity.js';
import { matches } from '../../shared/activityMatch.js';

export const DEFAULT_RING_ENTRIES = 2_000;
export const DEFAULT_RING_BYTES = 4 * 1024 * 1024;
const MAX_PAGE = 500;
const DEFAULT_PAGE = 100;

/** A record's weight in the ring: its strings and a fixed part for the rest, no serialisation. */
export function recordWeight(r: ActivityRecord): number {
  let n = 160 + r.method.length + (r.name?.length ?? 0) + (r.server?.length ?? 0) + (r.client?.length ?? 0);
  if (r.error) n += r.error.message.length;
  if (r.captured) n += (r.captured.params?.length ?? 0) + (r.captured.result?.length ?? 0);
  return n;
}

export class ActivityRing {
  private readonly items: ActivityRecord[] = [];
  private readonly weights: number[] = [];
  /** Index of the oldest held record in `items` (dropped ones are shifted out in batches). */
  private head = 0;
  private bytes = 0;
  private droppedCount = 0;

  constructor(
    readonly maxEntries = DEFAULT_RING_ENTRIES,
    readonly maxBytes = DEFAULT_RING_BYTES,
  ) {}

  get size(): number {
    return this.items.length - this.head;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  get dropped(): number {
    return this.droppedCount;
  }

  push(r: ActivityRecord): void {
    const w = recordWeight(r);
    this.items.push(r);
    this.weights.push(w);
    this.bytes += w;
    while (this.size > this.maxEntries || (this.bytes > this.maxBytes && this.size > 1)) {
      this.bytes -= this.weights[this.head];
      this.head++;
      this.droppedCount++;
    }
    // Compact once the dropped prefix is as long as what is held: amortised O(1) per push.
    if (this.head > 0 && this.head >= this.size) {
      this.items.splice(0, this.head);
      this.weights.splice(0, this.head);
      this.head = 0;
    }
  }

  /** One page, newest first, of the records that match `q`. */
  query(q: ActivityQuery = {}): ActivityPage {
    const limit = Math.min(Math.max(1, Math.floor(q.limit ?? DEFAULT_PAGE)), MAX_PAGE);
    const text = q.text?.toLowerCase();
    const records: ActivityRecord[] = [];
    let next: number | undefined;
    for (let i = this.items.length - 1; i >= this.head; i--) {
      const r = this.items[i];
      if (q.before !== undefined && r.seq >= q.before) continue;
      if (!matches(r, q, text)) continue;
      if (records.length === limit) {
        next = records[records.length - 1].seq;
        break;
      }
      records.push(r);
    }
    return { records, ...(next === undefined ? {} : { next }), held: this.size, dropped: this.droppedCount };
  }

  /** Every held record, newest first. */
  *newestFirst(): Iterable<ActivityRecord> {
    for (let i = this.items.length - 1; i >= this.head; i--) yield this.items[i];
  }
}
