// The tool-call stage of MCP Apps' visibility (hub/toolCall/appVisibility.ts): an agent's call
// of a tool whose `_meta.ui.visibility` lacks "model" is refused with a tool result naming the
// policy; a tool the model may see, or one with no visibility at all, goes on.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, type Kit } from '../hubKit.js';
import { openSession, runStage, toolCall } from './stageKit.js';
import { appVisibility } from '../../../../src/proxy/hub/toolCall/appVisibility.js';
import { REFUSAL_META } from '../../../../src/proxy/hub/policyRefusal.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

describe('appVisibility', () => {
  it("refuses an agent's call of an app-only tool, and hands on the others", async () => {
    const a = new FakeServer('a');
    a.tools = [
      { name: 'poll', _meta: { ui: { resourceUri: 'ui://a/view', visibility: ['app'] } } },
      { name: 'show', _meta: { ui: { resourceUri: 'ui://a/view', visibility: ['model', 'app'] } } },
      { name: 'plain' },
    ];
    kit = await startKit([a]);
    const at = await openSession(kit, { serverId: 'a' });
    const u = kit.hub.upstream('a')!;

    const hidden = toolCall(kit, at, 'poll');
    hidden.upstream = u;
    const refused = await runStage(appVisibility, hidden, at);
    expect(refused.passed).toBeUndefined();
    expect(refused.answer?.result?.isError).toBe(true);
    expect((refused.answer?.result?.content as { text: string }[])[0]!.text).toContain('an agent cannot call it');
    expect((refused.answer?.result?._meta as Record<string, unknown>)[REFUSAL_META]).toEqual({
      policy: 'visibility',
      server: 'a',
      tool: 'poll',
    });

    for (const name of ['show', 'plain']) {
      const call = toolCall(kit, at, name);
      call.upstream = u;
      expect((await runStage(appVisibility, call, at)).passed).toBe(call);
    }
  });
});
