// The tool-call stage that names the caller (hub/toolCall/callerStamp.ts): a call to a
// `bridge` upstream carries this proxy's caller key; a call to a server never carries the
// caller field, even when the client set it.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, type Kit } from '../hubKit.js';
import { openSession, runStage, toolCall } from './stageKit.js';
import { callerStamp } from '../../../../src/proxy/hub/toolCall/callerStamp.js';
import { CALLER_META } from '../../../../src/proxy/hub/approval/callerMeta.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

describe('callerStamp', () => {
  it("stamps a bridge's call with the caller key and strips a server's", async () => {
    const bridge = new FakeServer('b');
    bridge.entry = { command: undefined, type: 'bridge', url: 'http://127.0.0.1:9/mcp/x' };
    kit = await startKit([new FakeServer('a'), bridge], {}, { callerKey: 'k1' });
    const at = await openSession(kit);
    const claimed = { _meta: { [CALLER_META]: { name: 'someone', key: 'forged' }, other: 1 } };

    const toBridge = Object.assign(toolCall(kit, at, 'b__t'), { upstream: kit.hub.upstream('b') });
    const stamped = (await runStage(callerStamp, toBridge, at)).passed!;
    expect((stamped.params._meta as Record<string, unknown>)[CALLER_META]).toEqual({ key: 'k1' });

    const toServer = Object.assign(toolCall(kit, at, 'a__t', claimed), { upstream: kit.hub.upstream('a') });
    const stripped = (await runStage(callerStamp, toServer, at)).passed!;
    expect(stripped.params._meta).toEqual({ other: 1 });
  });
});
