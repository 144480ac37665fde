// The card's "Calls (5 min)" line from a server's health figures.
import { describe, expect, it } from 'vitest';
import { healthText } from '../../src/renderer/healthText.js';

describe('healthText', () => {
  it('says calls, errors and latency, and a dash before the first call', () => {
    expect(healthText(undefined)).toBe('\u2014');
    expect(healthText({ windowMs: 300_000, calls: 0, errors: 0, lastCallAt: '2026-01-01T00:00:00Z' })).toBe('\u2014');
    expect(healthText({ windowMs: 300_000, calls: 12, errors: 1, p50Ms: 4.2, p95Ms: 1530 })).toBe(
      '12 \u00b7 1 error \u00b7 p50 4 ms, p95 1.5 s',
    );
    expect(healthText({ windowMs: 300_000, calls: 3, errors: 0, p50Ms: 10, p95Ms: 20 })).toBe(
      '3 \u00b7 no errors \u00b7 p50 10 ms, p95 20 ms',
    );
    expect(healthText({ windowMs: 300_000, calls: 5, errors: 2, p50Ms: 1, p95Ms: 2 })).toContain('2 errors');
  });
});
