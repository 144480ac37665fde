// The tool-call stage of the approval policy (hub/toolCall/approval.ts): a call the policy
// denies is refused with a tool result saying why; an allowed one goes on, and so does every
// call under `"approval": "off"`.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, type Kit } from '../hubKit.js';
import { openSession, runStage, toolCall } from './stageKit.js';
import { approval } from '../../../../src/proxy/hub/toolCall/approval.js';
import { REFUSAL_META } from '../../../../src/proxy/hub/policyRefusal.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

function server(): FakeServer {
  const a = new FakeServer('a');
  a.tools = [{ name: 'echo' }, { name: 'wipe' }];
  a.entry = { approval: { echo: 'allow', wipe: 'deny' } };
  return a;
}

describe('approval', () => {
  it('refuses a denied call saying why, and hands on an allowed one', async () => {
    kit = await startKit([server()]);
    const at = await openSession(kit, { serverId: 'a' });
    const call = (name: string) => Object.assign(toolCall(kit!, at, name), { upstream: kit!.hub.upstream('a') });

    const refused = await runStage(approval, call('wipe'), at);
    expect(refused.passed).toBeUndefined();
    expect(refused.answer?.result?.isError).toBe(true);
    expect(JSON.stringify(refused.answer?.result?.content)).toContain('was denied by the approval policy');
    expect((refused.answer?.result?._meta as Record<string, unknown>)[REFUSAL_META]).toEqual({
      policy: 'approval',
      server: 'a',
      tool: 'wipe',
    });
    const allowed = call('echo');
    expect((await runStage(approval, allowed, at)).passed).toBe(allowed);
  });

  it('hands on every call when the policy is off', async () => {
    kit = await startKit([server()], { approval: 'off' });
    const at = await openSession(kit, { serverId: 'a' });
    const denied = Object.assign(toolCall(kit, at, 'wipe'), { upstream: kit.hub.upstream('a') });
    expect((await runStage(approval, denied, at)).passed).toBe(denied);
  });
});
