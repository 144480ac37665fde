// The requestState of held calls (hub/heldInputTable.ts): integrity, expiry, binding, one use.
import { describe, expect, it } from 'vitest';
import { HeldInputTable, MAX_HELD_CALLS, type HeldEntry } from '../../../src/proxy/hub/modern/heldInputTable.js';
import type { Upstream } from '../../../src/proxy/upstream/upstream.js';

const u = { id: 'a' } as unknown as Upstream;
function entry(table: HeldInputTable, extra: Partial<HeldEntry> = {}): HeldEntry & { round: number; released?: string } {
  const e = {
    key: table.newKey(),
    upstream: u,
    startedAt: Date.now(),
    round: 1,
    principal: 'p',
    method: 'tools/call',
    digest: 'd',
    released: undefined as string | undefined,
    ask() {},
    release(reason: string) {
      e.released = reason;
      table.delete(e);
    },
    ...extra,
  };
  return e;
}

describe('HeldInputTable', () => {
  it('redeems its own state once per round, for the same principal and request only', () => {
    const t = new HeldInputTable();
    const e = entry(t);
    t.add(e);
    const state = t.sign(e, Date.now() + 10_000);
    expect(t.redeem(state, 'p', 'tools/call', 'd')).toBe(e);
    expect(t.redeem(state, 'q', 'tools/call', 'd')).toMatchObject({ code: -32602, message: expect.stringMatching(/another client/) });
    expect(t.redeem(state, 'p', 'prompts/get', 'd')).toMatchObject({ message: expect.stringMatching(/another request/) });
    expect(t.redeem(state, 'p', 'tools/call', 'other')).toMatchObject({ message: expect.stringMatching(/another request/) });
    e.round = 2;
    expect(t.redeem(state, 'p', 'tools/call', 'd')).toMatchObject({ message: expect.stringMatching(/already used/) });
    t.delete(e);
    expect(t.redeem(t.sign(e, Date.now() + 10_000), 'p', 'tools/call', 'd')).toMatchObject({ message: expect.stringMatching(/has ended/) });
  });

  it('refuses a state that was altered anywhere, expired, or comes from another table', () => {
    const t = new HeldInputTable();
    const e = entry(t);
    t.add(e);
    const state = t.sign(e, Date.now() + 10_000);
    const [prefix, payload, mac] = state.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), p: 'q' })).toString('base64url');
    for (const bad of [state + '-TAMPERED', `${prefix}.${forged}.${mac}`, `${prefix}.${payload}.${mac!.slice(0, -2)}`, 'qmrs1.x.y', 'hello', `${state}.x`]) {
      expect(t.redeem(bad, 'p', 'tools/call', 'd')).toMatchObject({ code: -32602 });
    }
    expect(new HeldInputTable().redeem(state, 'p', 'tools/call', 'd')).toMatchObject({ message: expect.stringMatching(/failed verification/) });
    expect(t.redeem(t.sign(e, Date.now() - 1), 'p', 'tools/call', 'd')).toMatchObject({ message: expect.stringMatching(/expired/) });
  });

  it('finds a held call by the wire, and releases the oldest beyond the bound', () => {
    const t = new HeldInputTable();
    const first = entry(t, { upstreamId: 7, upstreamToken: 'qp1' });
    t.add(first);
    expect(t.byWire(u, 7, undefined)).toBe(first);
    expect(t.byWire(u, undefined, 'qp1')).toBe(first);
    expect(t.byWire(u, 8, 'qp2')).toBeUndefined();
    expect(t.byWire({ id: 'b' } as unknown as Upstream, 7, undefined)).toBeUndefined();
    for (let i = 0; i < MAX_HELD_CALLS; i++) t.add(entry(t));
    expect(first.released).toMatch(/oldest was ended/);
    expect(t.size).toBe(MAX_HELD_CALLS);
  });
});
