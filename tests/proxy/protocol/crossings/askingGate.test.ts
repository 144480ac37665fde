// Which held calls run at once on a server whose requests carry no link to a call (hub/askingGate.ts).
import { describe, expect, it } from 'vitest';
import { AskingGate, type GatedCall } from '../../../../src/proxy/protocol/crossings/askingGate.js';
import type { Upstream } from '../../../../src/proxy/upstream/upstream.js';

const server = (clientCapabilities?: Record<string, boolean>) =>
  ({ id: 's', entry: { clientCapabilities } }) as unknown as Upstream;
const call = (upstream: Upstream, tool: string): GatedCall => ({ upstream, askKey: `tools/call\0${tool}` });
const flush = () => new Promise<void>((r) => setImmediate(r));

describe('AskingGate', () => {
  it('runs calls that may ask one at a time, first come first served, and a withdrawn one never', async () => {
    const g = new AskingGate();
    const u = server({ elicitation: true });
    const ran: string[] = [];
    const [a, b, c] = [call(u, 'ask'), call(u, 'ask'), call(u, 'ask')];
    g.enter(a, () => ran.push('a'));
    g.enter(b, () => ran.push('b'));
    g.enter(c, () => ran.push('c'));
    expect(ran).toEqual(['a']);
    expect(g.holder(u)).toBe(a);
    expect(g.queued(b) && g.queued(c)).toBe(true);
    g.leave(b); // b's client went away while it waited
    g.leave(a, 'asks');
    await flush();
    expect(ran).toEqual(['a', 'c']);
    expect(g.holder(u)).toBe(c);
  });

  it('lets a tool seen to finish without asking run at once, and keeps a tool that asked waiting its turn', async () => {
    const g = new AskingGate();
    const u = server({ sampling: true });
    const ran: string[] = [];
    const first = call(u, 'read');
    g.enter(first, () => ran.push('read1'));
    const asker = call(u, 'ask');
    const second = call(u, 'read');
    g.enter(asker, () => ran.push('ask1'));
    g.enter(second, () => ran.push('read2'));
    expect(ran).toEqual(['read1']);
    // The first read finished without asking: the waiting read runs at once, the asker takes the turn.
    g.leave(first, 'quiet');
    await flush();
    expect(ran).toEqual(['read1', 'ask1', 'read2']);
    expect(g.holder(u)).toBe(asker);
    g.enter(call(u, 'read'), () => ran.push('read3'));
    expect(ran.at(-1)).toBe('read3');
    g.leave(asker, 'asks');
    // A tool once seen asking stays one that waits, even after a call of it that did not ask.
    const again = call(u, 'ask');
    g.enter(again, () => ran.push('ask2'));
    g.leave(again, 'quiet');
    g.enter(call(u, 'ask'), () => ran.push('ask3'));
    g.enter(call(u, 'ask'), () => ran.push('ask4'));
    expect(ran.slice(-2)).toEqual(['ask2', 'ask3']);
  });

  it('does not hold back calls to a server that may not ask at all', () => {
    const g = new AskingGate();
    const ran: string[] = [];
    for (const caps of [undefined, {}, { tasks: true }] as (Record<string, boolean> | undefined)[]) {
      const u = server(caps);
      g.enter(call(u, 'x'), () => ran.push('x'));
      g.enter(call(u, 'x'), () => ran.push('x'));
      expect(g.holder(u)).toBeUndefined();
    }
    expect(ran).toHaveLength(6);
  });
});
