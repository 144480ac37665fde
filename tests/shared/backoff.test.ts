import { describe, expect, it } from 'vitest';
import { Backoff, backoffDelay } from '../../src/shared/backoff.js';

describe('Backoff (the one copy)', () => {
  it('doubles from the initial delay to the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, 50, 400))).toEqual([50, 100, 200, 400, 400, 400]);
  });

  it('maxAttempts counts the first attempt: 5 means four delays, then give up', () => {
    const b = new Backoff({ initialDelayMs: 1000, maxDelayMs: 60_000, maxAttempts: 5 });
    const delays = [b.fail(), b.fail(), b.fail(), b.fail(), b.fail()];
    expect(delays).toEqual([1000, 2000, 4000, 8000, undefined]);
    expect(b.failures).toBe(5);
    b.reset();
    expect(b.failures).toBe(0);
    expect(b.fail()).toBe(1000);
  });

  it('without maxAttempts never gives up', () => {
    const b = new Backoff({ initialDelayMs: 500, maxDelayMs: 5000 });
    const delays = Array.from({ length: 50 }, () => b.fail());
    expect(delays.slice(0, 6)).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
    expect(delays.every((d) => d !== undefined)).toBe(true);
  });
});
