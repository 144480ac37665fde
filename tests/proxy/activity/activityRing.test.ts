// The activity ring's bounds (count and bytes), its filters and paging, and the health
// window's figures and memory bound: the pure parts of src/proxy/activity/.
import { describe, expect, it } from 'vitest';
import type { ActivityRecord } from '../../../src/shared/activity.js';
import { ActivityRing, recordWeight } from '../../../src/proxy/activity/activityRing.js';
import { HealthWindow, percentile } from '../../../src/proxy/activity/healthWindow.js';
import { parseActivityQuery } from '../../../src/proxy/bridge/activityRoute.js';

let seq = 0;
function rec(extra: Partial<ActivityRecord> = {}): ActivityRecord {
  return {
    seq: ++seq,
    at: new Date().toISOString(),
    session: 1,
    method: 'tools/call',
    durationMs: 1,
    outcome: 'ok',
    progress: 0,
    ...extra,
  };
}

describe('ActivityRing', () => {
  it('keeps at most maxEntries records, the newest, and counts the dropped', () => {
    const ring = new ActivityRing(10, 1_000_000);
    const all = Array.from({ length: 25 }, (_, i) => rec({ name: `t${i}` }));
    for (const r of all) ring.push(r);
    expect(ring.size).toBe(10);
    expect(ring.dropped).toBe(15);
    const page = ring.query({ limit: 500 });
    expect(page.records.map((r) => r.name)).toEqual(
      all
        .slice(15)
        .reverse()
        .map((r) => r.name),
    );
    expect(page).toMatchObject({ held: 10, dropped: 15 });
  });

  it('keeps its bytes under maxBytes by dropping the oldest, but always the newest one', () => {
    const big = (n: number) => rec({ error: { code: -1, message: 'x'.repeat(n) } });
    const ring = new ActivityRing(1_000, 5_000);
    for (let i = 0; i < 50; i++) ring.push(big(400));
    expect(ring.heldBytes).toBeLessThanOrEqual(5_000);
    expect(ring.size).toBe(Math.floor(5_000 / recordWeight(big(400))));
    const huge = big(20_000);
    ring.push(huge);
    expect(ring.size).toBe(1);
    expect(ring.query().records[0]).toBe(huge);
  });

  it('filters by server, client, outcome and text (case-insensitive), all together', () => {
    const ring = new ActivityRing();
    ring.push(rec({ server: 'a', client: 'claude', name: 'a__Search' }));
    ring.push(rec({ server: 'b', client: 'claude', outcome: 'error', error: { code: -32602, message: 'Bad Things' } }));
    ring.push(rec({ server: 'a', client: 'cursor', outcome: 'timeout' }));
    ring.push(rec({ server: 'a', client: 'claude', outcome: 'denied', name: 'a__delete' }));
    const names = (q: Parameters<ActivityRing['query']>[0]) =>
      ring.query(q).records.map((r) => `${r.server}/${r.client}/${r.outcome}`);
    expect(names({ server: 'a' })).toEqual(['a/claude/denied', 'a/cursor/timeout', 'a/claude/ok']);
    expect(names({ client: 'claude', server: 'a' })).toEqual(['a/claude/denied', 'a/claude/ok']);
    expect(names({ outcome: 'error' })).toEqual(['b/claude/error']);
    expect(names({ text: 'bad things' })).toEqual(['b/claude/error']);
    expect(names({ text: 'SEARCH' })).toEqual(['a/claude/ok']);
    expect(names({ text: 'cursor', outcome: 'ok' })).toEqual([]);
  });

  it('pages newest first by the before cursor, each record once', () => {
    const ring = new ActivityRing();
    const all = Array.from({ length: 23 }, (_, i) => rec({ server: i % 2 ? 'odd' : 'even' }));
    for (const r of all) ring.push(r);
    const seen: number[] = [];
    let before: number | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const p = ring.query({ server: 'odd', limit: 4, before });
      seen.push(...p.records.map((r) => r.seq));
      if (p.next === undefined) break;
      before = p.next;
    }
    expect(seen).toEqual(
      all
        .filter((r) => r.server === 'odd')
        .map((r) => r.seq)
        .reverse(),
    );
  });

  it('reads filters from a query string and refuses wrong ones with a clear message', () => {
    expect(
      parseActivityQuery(new URLSearchParams('server=a&client=c&outcome=timeout&text=x&before=9&limit=5')),
    ).toEqual({ server: 'a', client: 'c', outcome: 'timeout', text: 'x', before: 9, limit: 5 });
    expect(parseActivityQuery(new URLSearchParams('outcome=weird'))).toMatch(
      /outcome must be one of ok, tool-error, error/,
    );
    expect(parseActivityQuery(new URLSearchParams('limit=-3'))).toBe('limit must be a positive integer');
    expect(parseActivityQuery(new URLSearchParams('before=abc'))).toBe('before must be a positive integer');
  });
});

describe('HealthWindow', () => {
  it('gives calls, errors, p50 and p95 over the window, and forgets what is older', () => {
    let now = 1_000_000;
    const h = new HealthWindow(60_000, 1_000, () => now);
    for (let i = 1; i <= 100; i++) h.add('a', i, i % 10 === 0 ? 'error' : i === 5 ? 'cancelled' : 'ok');
    expect(h.of('a')).toEqual({
      windowMs: 60_000,
      calls: 100,
      errors: 10,
      p50Ms: 50,
      p95Ms: 95,
      lastCallAt: new Date(now).toISOString(),
    });
    now += 61_000;
    h.add('a', 7, 'timeout');
    expect(h.of('a')).toMatchObject({ calls: 1, errors: 1, p50Ms: 7, p95Ms: 7 });
    now += 61_000;
    expect(h.of('a')).toEqual({
      windowMs: 60_000,
      calls: 0,
      errors: 0,
      lastCallAt: new Date(now - 61_000).toISOString(),
    });
    expect(h.of('nobody')).toBeUndefined();
  });

  it('keeps at most maxSamples per server', () => {
    const h = new HealthWindow(60_000, 16);
    for (let i = 0; i < 1_000; i++) h.add('a', i, 'ok');
    expect(h.of('a')!.calls).toBe(16);
    expect(h.of('a')!.p50Ms).toBeGreaterThanOrEqual(984);
  });

  it('takes the nearest-rank percentile', () => {
    expect(percentile([1], 0.95)).toBe(1);
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4], 0.95)).toBe(4);
  });
});
