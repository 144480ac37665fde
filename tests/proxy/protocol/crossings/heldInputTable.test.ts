// The held calls' table (hub/heldInputTable.ts): the requestState's integrity, expiry, binding
// and single use; the bounds per principal and in all; which call a request without a link goes to.
import { describe, expect, it } from 'vitest';
import {
  HeldInputTable,
  MAX_HELD_CALLS,
  MAX_HELD_PER_PRINCIPAL,
  type HeldEntry,
} from '../../../../src/proxy/protocol/crossings/heldInputTable.js';
import type { Upstream } from '../../../../src/proxy/upstream/upstream.js';

const u = { id: 'a', entry: { clientCapabilities: { elicitation: true } } } as unknown as Upstream;
type Entry = HeldEntry & { round: number; waiting: boolean; running: boolean; released?: string; suspected: boolean };
function entry(table: HeldInputTable, extra: Partial<Entry> = {}): Entry {
  const e: Entry = {
    key: table.newKey(),
    upstream: u,
    askKey: 'tools/call\0t',
    round: 1,
    principal: 'p',
    method: 'tools/call',
    digest: 'd',
    waiting: false,
    running: false,
    released: undefined as string | undefined,
    suspected: false,
    ask() {},
    mayHaveAsked() {
      e.suspected = true;
    },
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
    expect(t.redeem(state, 'q', 'tools/call', 'd')).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/another client/),
    });
    expect(t.redeem(state, 'p', 'prompts/get', 'd')).toMatchObject({
      message: expect.stringMatching(/another request/),
    });
    expect(t.redeem(state, 'p', 'tools/call', 'other')).toMatchObject({
      message: expect.stringMatching(/another request/),
    });
    // Redeemed by a retry that now waits on the call: a second retry with it is refused.
    e.waiting = true;
    expect(t.redeem(state, 'p', 'tools/call', 'd')).toMatchObject({
      message: 'Invalid params: requestState was already used by a retry that is still waiting for the call',
    });
    e.waiting = false;
    e.round = 2;
    expect(t.redeem(state, 'p', 'tools/call', 'd')).toMatchObject({ message: expect.stringMatching(/already used/) });
    t.delete(e);
    expect(t.redeem(t.sign(e, Date.now() + 10_000), 'p', 'tools/call', 'd')).toMatchObject({
      message: expect.stringMatching(/has ended/),
    });
  });

  it('refuses a state that was altered anywhere, expired, or comes from another table', () => {
    const t = new HeldInputTable();
    const e = entry(t);
    t.add(e);
    const state = t.sign(e, Date.now() + 10_000);
    const [prefix, payload, mac] = state.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), p: 'q' }),
    ).toString('base64url');
    for (const bad of [
      state + '-TAMPERED',
      `${prefix}.${forged}.${mac}`,
      `${prefix}.${payload}.${mac!.slice(0, -2)}`,
      'qmrs1.x.y',
      'hello',
      `${state}.x`,
    ]) {
      expect(t.redeem(bad, 'p', 'tools/call', 'd')).toMatchObject({ code: -32602 });
    }
    expect(new HeldInputTable().redeem(state, 'p', 'tools/call', 'd')).toMatchObject({
      message: expect.stringMatching(/failed verification/),
    });
    expect(t.redeem(t.sign(e, Date.now() - 1), 'p', 'tools/call', 'd')).toMatchObject({
      message: expect.stringMatching(/expired/),
    });
  });

  it('finds a held call by the wire', () => {
    const t = new HeldInputTable();
    const first = entry(t, { upstreamId: 7, upstreamToken: 'qp1' });
    t.add(first);
    expect(t.byWire(u, 7, undefined)).toBe(first);
    expect(t.byWire(u, undefined, 'qp1')).toBe(first);
    expect(t.byWire(u, 8, 'qp2')).toBeUndefined();
    expect(t.byWire({ id: 'b' } as unknown as Upstream, 7, undefined)).toBeUndefined();
  });

  it("bounds each principal's calls by releasing its own oldest, never another's", () => {
    const t = new HeldInputTable();
    const victim = entry(t, { principal: 'victim' });
    t.add(victim);
    const greedy = Array.from({ length: MAX_HELD_PER_PRINCIPAL + 5 }, () => entry(t, { principal: 'greedy' }));
    for (const e of greedy) t.add(e);
    expect(victim.released).toBeUndefined();
    expect(greedy.slice(0, 5).every((e) => /this client had more than 64 calls/.test(e.released ?? ''))).toBe(true);
    expect(greedy.slice(5).every((e) => e.released === undefined)).toBe(true);
    expect(t.countOf('greedy')).toBe(MAX_HELD_PER_PRINCIPAL);
    expect(t.countOf('victim')).toBe(1);
  });

  it('beyond the ceiling in all, releases the oldest call of the principals holding the most', () => {
    const t = new HeldInputTable();
    const small = entry(t, { principal: 'small' });
    t.add(small);
    const many = MAX_HELD_CALLS / MAX_HELD_PER_PRINCIPAL;
    const big: Entry[][] = [];
    for (let p = 0; p < many; p++) {
      big.push(
        Array.from({ length: p === 0 ? MAX_HELD_PER_PRINCIPAL - 1 : MAX_HELD_PER_PRINCIPAL }, () =>
          entry(t, { principal: `big${p}` }),
        ),
      );
      for (const e of big[p]!) t.add(e);
    }
    // small 1 + big0 63 + three of 64 = 256; one more of small: big1's oldest goes (big1..3 hold the most, big1's is oldest).
    expect(t.size).toBe(MAX_HELD_CALLS);
    t.add(entry(t, { principal: 'small' }));
    expect(t.size).toBe(MAX_HELD_CALLS);
    expect(big[1]![0]!.released).toMatch(/the oldest of the client holding the most was ended/);
    expect(small.released).toBeUndefined();
    expect(big[0]!.every((e) => e.released === undefined)).toBe(true);
  });

  it('gives a request without a link to the call whose turn it is, else the one running, and never guesses between several', () => {
    const t = new HeldInputTable();
    const a = entry(t, { running: true });
    const b = entry(t, { askKey: 'tools/call\0other' });
    t.add(a);
    t.add(b);
    expect(t.unlinked(u)).toBe(a);
    b.running = true;
    expect(t.unlinked(u)).toBe('ambiguous');
    expect(a.suspected && b.suspected).toBe(true);
    // a takes the turn on its server (askingGate.ts): it is then the one.
    const c = entry(t, { running: true });
    t.add(c);
    t.gate.enter(c, () => undefined);
    expect(t.unlinked(u)).toBe(c);
    expect(t.unlinked({ id: 'b' } as unknown as Upstream)).toBeUndefined();
  });
});
