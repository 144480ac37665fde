// The tool-call stage of the call's timeout (hub/toolCall/toolTimeout.ts): the server's
// `toolTimeouts` glob, then the top level's, else the server's own timeout.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, type Kit } from '../hubKit.js';
import { openSession, runStage, toolCall } from './stageKit.js';
import { toolTimeout } from '../../../../src/proxy/hub/toolCall/toolTimeout.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

describe('toolTimeout', () => {
  it("sets the server's glob, then the top level's, else the server's timeout", async () => {
    const a = new FakeServer('a');
    a.entry = { timeoutMs: 1234, toolTimeouts: { 'ask_*': 86_400_000 } };
    kit = await startKit([a], { toolTimeouts: { 'slow_*': 99_000, 'ask_*': 5 } });
    const at = await openSession(kit, { serverId: 'a' });
    const timeoutOf = async (name: string) =>
      (await runStage(toolTimeout, Object.assign(toolCall(kit!, at, name), { upstream: kit!.hub.upstream('a') }), at))
        .passed!.timeoutMs;
    expect(await timeoutOf('ask_user')).toBe(86_400_000);
    expect(await timeoutOf('slow_job')).toBe(99_000);
    expect(await timeoutOf('echo')).toBe(1234);
  });
});
