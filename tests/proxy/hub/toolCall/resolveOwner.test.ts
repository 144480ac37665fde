// The tool-call stage that finds the owner of a called name (hub/toolCall/resolveOwner.ts):
// an aggregate's namespaced name is its server's tool under the server's own name; a name
// nobody owns goes on without an owner; a single-server session's server owns every name.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, type Kit } from '../hubKit.js';
import { openSession, runStage, toolCall } from './stageKit.js';
import { resolveOwner } from '../../../../src/proxy/hub/toolCall/resolveOwner.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

function echoServer(id: string): FakeServer {
  const s = new FakeServer(id);
  s.tools = [{ name: 'echo', inputSchema: { type: 'object' } }];
  return s;
}

describe('resolveOwner', () => {
  it("names an aggregate's tool by its server and the server's own name", async () => {
    kit = await startKit([echoServer('a'), echoServer('b')]);
    const at = await openSession(kit);
    const { passed } = await runStage(resolveOwner, toolCall(kit, at, 'b__echo', { arguments: { x: 1 } }), at);
    expect(passed?.upstream?.id).toBe('b');
    expect(passed?.name).toBe('echo');
    expect(passed?.params).toEqual({ name: 'echo', arguments: { x: 1 } });
  });

  it('hands on a name nobody owns without an owner, and a single session its server with the name as called', async () => {
    kit = await startKit([echoServer('a')]);
    const at = await openSession(kit);
    const unknown = await runStage(resolveOwner, toolCall(kit, at, 'a__nothing'), at);
    expect(unknown.passed?.upstream).toBeUndefined();
    expect(unknown.passed?.name).toBe('a__nothing');
    const single = await openSession(kit, { serverId: 'a' });
    const { passed } = await runStage(resolveOwner, toolCall(kit, single, 'echo'), single);
    expect(passed?.upstream?.id).toBe('a');
    expect(passed?.params).toEqual({ name: 'echo' });
  });
});
