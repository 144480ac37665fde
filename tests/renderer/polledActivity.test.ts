// The app's activity feed (the IPC page asked again) over the bridge's real ring: every new
// record handed on once and in order, a burst larger than one page paged back, a log that
// started again (a restarted bridge) said as `live` again, and a log that is off said as such.
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityQuery, ActivityRecord } from '../../src/shared/activity.js';
import type { ActivityResult } from '../../src/shared/ipcContract.js';
import { ActivityRing } from '../../src/proxy/activity/activityRing.js';
import { PolledActivityFeed } from '../../src/renderer/polledActivity.js';
import type { FeedState } from '../../src/renderer/activityFeed.js';
import { waitFor } from '../helpers/waitFor.js';

const stops: (() => void)[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s();
});

function record(seq: number): ActivityRecord {
  return {
    seq,
    at: new Date().toISOString(),
    session: 1,
    server: 'a',
    method: 'tools/call',
    durationMs: 1,
    outcome: 'ok',
    progress: 0,
  };
}

/** A feed over `ring()` (swappable: a new ring is a restarted bridge), and what it handed on. */
function follow(ring: () => ActivityRing) {
  const got: number[] = [];
  const states: FeedState[] = [];
  const asked: ActivityQuery[] = [];
  const feed = new PolledActivityFeed(async (q): Promise<ActivityResult> => {
    asked.push(q);
    return { ok: true, ...ring().query(q) };
  }, 20);
  stops.push(
    feed.follow(
      (r) => got.push(r.seq),
      (s) => states.push(s),
    ),
  );
  return { got, states, asked };
}

describe('PolledActivityFeed', () => {
  it('hands on each new record once, oldest first, paging back through a burst', async () => {
    const ring = new ActivityRing();
    ring.push(record(1));
    const f = follow(() => ring);
    await waitFor(() => f.states.includes('live'), 10_000, 'live');
    // Before the feed was live: the page's, not the feed's.
    expect(f.got).toEqual([]);
    for (let s = 2; s <= 451; s++) ring.push(record(s));
    await waitFor(
      () => f.got.length >= 450,
      10_000,
      () => `450 records, got ${f.got.length}`,
    );
    expect(f.got).toEqual(Array.from({ length: 450 }, (_, i) => i + 2));
    expect(f.asked.some((q) => q.before !== undefined)).toBe(true);
    ring.push(record(452));
    await waitFor(() => f.got.at(-1) === 452, 10_000, 'the next record');
    expect(f.got.length).toBe(451);
  });

  it('says live again when the log starts again, then follows the new one', async () => {
    let ring = new ActivityRing();
    for (let s = 1; s <= 50; s++) ring.push(record(s));
    const f = follow(() => ring);
    await waitFor(() => f.states.includes('live'), 10_000, 'live');
    ring = new ActivityRing();
    ring.push(record(1));
    await waitFor(() => f.states.filter((s) => s === 'live').length === 2, 10_000, 'live again');
    ring.push(record(2));
    await waitFor(() => f.got.includes(2), 10_000, 'the new log record');
    expect(f.got).toEqual([2]);
  });

  it('says off when the log is off', async () => {
    const states: [FeedState, string | undefined][] = [];
    const feed = new PolledActivityFeed(
      async () => ({ ok: false, error: 'the activity log is off ("activity": "off")' }),
      20,
    );
    stops.push(
      feed.follow(
        () => undefined,
        (s, why) => states.push([s, why]),
      ),
    );
    await waitFor(() => states.length > 0, 10_000, 'a state');
    expect(states[0]).toEqual(['off', 'the activity log is off ("activity": "off")']);
  });
});
