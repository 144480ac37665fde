// The tool-call stage that answers a call no ready server owns (hub/toolCall/ownerFound.ts):
// a name with a server's prefix names that server and its state, any other is unknown; a call
// with an owner goes on.
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../../src/proxy/jsonrpc/jsonRpc.js';
import { FakeServer, startKit, type Kit } from '../hubKit.js';
import { openSession, runStage, toolCall } from './stageKit.js';
import { resolveOwner } from '../../../../src/proxy/hub/toolCall/resolveOwner.js';
import { ownerFound } from '../../../../src/proxy/hub/toolCall/ownerFound.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

describe('ownerFound', () => {
  it("answers an unknown name, and a not-ready server's name with its state; hands on an owned one", async () => {
    const a = new FakeServer('a');
    a.tools = [{ name: 'echo', inputSchema: { type: 'object' } }];
    const down = new FakeServer('down');
    down.handlers.initialize = () => {
      throw new Error('refuses to start');
    };
    kit = await startKit([a, down]);
    const at = await openSession(kit);
    const run = async (name: string) =>
      runStage(ownerFound, (await runStage(resolveOwner, toolCall(kit!, at, name), at)).passed!, at);

    expect((await run('nobody__x')).answer?.error).toEqual({
      code: ErrorCode.InvalidParams,
      message: 'Unknown tool: nobody__x',
    });
    const notReady = (await run('down__x')).answer?.error;
    expect(notReady?.code).toBe(ErrorCode.ServerNotReady);
    expect(notReady?.message).toMatch(/^tool "down__x" belongs to server "down", which is \w+: .*refuses to start/);
    expect((await run('a__echo')).passed?.upstream?.id).toBe('a');
  });
});
