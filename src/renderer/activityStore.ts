/**
 * The calls the Activity view holds: from pages and the live feed, one per `seq`, newest
 * first, at most `max` (the oldest go first). The table, the filters and the latency charts
 * read from here.
 */
import type { ActivityQuery, ActivityRecord } from '../shared/activity.js';
import { matches } from '../shared/activityMatch.js';

export const MAX_HELD = 2_000;

export class ActivityStore {
  /** Newest first. */
  private list: ActivityRecord[] = [];
  private readonly bySeq = new Map<number, ActivityRecord>();

  constructor(readonly max = MAX_HELD) {}

  get size(): number {
    return this.list.length;
  }

  get(seq: number): ActivityRecord | undefined {
    return this.bySeq.get(seq);
  }

  clear(): void {
    this.list = [];
    this.bySeq.clear();
  }

  /** Adds what it does not hold yet; answers the records added. */
  add(records: readonly ActivityRecord[]): ActivityRecord[] {
    const added = records.filter((r) => !this.bySeq.has(r.seq));
    if (added.length === 0) return added;
    for (const r of added) this.bySeq.set(r.seq, r);
    const newest = this.list[0]?.seq ?? -Infinity;
    if (added.length === 1 && added[0]!.seq > newest) this.list.unshift(added[0]!);
    else this.list = [...this.list, ...added].sort((a, b) => b.seq - a.seq);
    while (this.list.length > this.max) this.bySeq.delete(this.list.pop()!.seq);
    return added.filter((r) => this.bySeq.has(r.seq));
  }

  /** Newest first: the first `limit` that pass `q`. */
  matching(q: ActivityQuery, limit: number): ActivityRecord[] {
    const text = q.text?.toLowerCase();
    const out: ActivityRecord[] = [];
    for (const r of this.list) {
      if (out.length === limit) break;
      if (matches(r, q, text)) out.push(r);
    }
    return out;
  }

  /** Every held record, newest first. */
  all(): readonly ActivityRecord[] {
    return this.list;
  }
}
