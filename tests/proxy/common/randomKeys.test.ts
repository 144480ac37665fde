// The per-call keys of held calls and translated tasks: each one fresh, of the asked size,
// across the refills of the pool they are cut from.
import { describe, expect, it } from 'vitest';
import { randomKey } from '../../../src/proxy/common/randomKeys.js';

describe('randomKey', () => {
  it('gives distinct base64url keys of the asked size, across many pool refills', () => {
    const keys = new Set<string>();
    // 12- and 16-byte keys, mixed, so slices straddle the 4 KiB pool's end.
    for (let i = 0; i < 20_000; i++) {
      const k = randomKey(i % 3 === 0 ? 16 : 12);
      expect(Buffer.from(k, 'base64url').length).toBe(i % 3 === 0 ? 16 : 12);
      keys.add(k);
    }
    expect(keys.size).toBe(20_000);
    expect([...keys].every((k) => /^[A-Za-z0-9_-]+$/.test(k))).toBe(true);
  });

  it('spreads its bytes: every byte value appears, none dominates', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 4096; i++) for (const b of Buffer.from(randomKey(16), 'base64url')) counts[b]!++;
    // 65,536 bytes: 256 expected of each value; a stuck or zeroed pool would put thousands on one.
    expect(Math.min(...counts)).toBeGreaterThan(150);
    expect(Math.max(...counts)).toBeLessThan(380);
  });

  it('refuses a key larger than its pool', () => {
    expect(() => randomKey(5000)).toThrow(RangeError);
  });
});
