// The tool-call stage of the tool filters (hub/toolCall/allowedByFilter.ts): a tool the
// server's filters hide is refused with a tool result naming the filter; an allowed one goes on.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, type Kit } from '../hubKit.js';
import { openSession, runStage, toolCall } from './stageKit.js';
import { allowedByFilter } from '../../../../src/proxy/hub/toolCall/allowedByFilter.js';
import { REFUSAL_META } from '../../../../src/proxy/hub/policyRefusal.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

describe('allowedByFilter', () => {
  it('refuses a hidden tool naming the filter, and hands on an allowed one', async () => {
    const a = new FakeServer('a');
    a.tools = [{ name: 'echo' }, { name: 'wipe' }];
    a.entry = { denyTools: ['wipe'] };
    kit = await startKit([a]);
    const at = await openSession(kit, { serverId: 'a' });
    const u = kit.hub.upstream('a')!;

    const hidden = toolCall(kit, at, 'wipe');
    hidden.upstream = u;
    const refused = await runStage(allowedByFilter, hidden, at);
    expect(refused.passed).toBeUndefined();
    expect(refused.answer?.result?.isError).toBe(true);
    expect((refused.answer?.result?.content as { text: string }[])[0]!.text).toContain(
      'the tool filters of server "a" hide "wipe"',
    );
    expect((refused.answer?.result?._meta as Record<string, unknown>)[REFUSAL_META]).toEqual({
      policy: 'filter',
      server: 'a',
      tool: 'wipe',
    });

    const allowed = toolCall(kit, at, 'echo');
    allowed.upstream = u;
    expect((await runStage(allowedByFilter, allowed, at)).passed).toBe(allowed);
  });
});
