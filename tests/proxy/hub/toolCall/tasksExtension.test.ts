// The tool-call stage of a 2026-07-28 client's call (hub/toolCall/tasksExtension.ts): it goes
// the tasks extension's way to the server (a task-required 2025 tool refused to a client
// without the extension); a 2025 client's call goes on.
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../../src/proxy/jsonrpc/jsonRpc.js';
import { FakeServer, startKit, until, type Kit } from '../hubKit.js';
import { openSession, runStage, toolCall, type StageSession } from './stageKit.js';
import { tasksExtension } from '../../../../src/proxy/hub/toolCall/tasksExtension.js';
import {
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  REV2026_PROTOCOL_VERSION,
} from '../../../../src/proxy/protocol/rev2026-07-28/vocabulary.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const ENVELOPE = { [META_PROTOCOL_VERSION]: REV2026_PROTOCOL_VERSION, [META_CLIENT_CAPABILITIES]: {} };

/** Makes `at`'s session a 2026-07-28 one: its first request carries the envelope. */
async function speak2026(at: StageSession): Promise<void> {
  await at.send({ jsonrpc: '2.0', id: 'first', method: 'tools/list', params: { _meta: ENVELOPE } });
  await until(() => at.received.some((m) => (m as { id?: unknown }).id === 'first'), 'the first answer');
}

describe('tasksExtension', () => {
  it("takes a 2026 client's call to its server and hands on a 2025 client's", async () => {
    const a = new FakeServer('a');
    a.tools = [{ name: 'long', execution: { taskSupport: 'required' } }];
    kit = await startKit([a]);
    const old = await openSession(kit, { serverId: 'a' });
    const passing = Object.assign(toolCall(kit, old, 'long'), { upstream: kit.hub.upstream('a'), timeoutMs: 1000 });
    expect((await runStage(tasksExtension, passing, old)).passed).toBe(passing);

    const at = await openSession(kit, { serverId: 'a' });
    await speak2026(at);
    const call = Object.assign(toolCall(kit, at, 'long', { _meta: ENVELOPE }), {
      upstream: kit.hub.upstream('a'),
      timeoutMs: 1000,
    });
    const taken = await runStage(tasksExtension, call, at);
    expect(taken.passed).toBeUndefined();
    expect(taken.answer?.error?.code).toBe(ErrorCode.MissingRequiredClientCapability);
  });
});
