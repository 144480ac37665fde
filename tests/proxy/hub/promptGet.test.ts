// `prompts/get` on its own path (hub/promptGet.ts): an aggregate's prompt goes to its server
// under the server's own name; a name nobody owns is unknown; a single session passes it as is.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, type Kit } from './hubKit.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

function promptServer(id: string): FakeServer {
  const s = new FakeServer(id, { prompts: {} });
  s.handlers['prompts/list'] = () => ({ prompts: [{ name: 'greet' }] });
  s.handlers['prompts/get'] = (req) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `${id}:${String(req.params?.name)}` } }],
  });
  return s;
}

describe('prompts/get', () => {
  it("routes an aggregate's prompt to its server under its own name, and names an unknown one", async () => {
    kit = await startKit([promptServer('a'), promptServer('b')]);
    const c = await kit.connect();
    expect(await c.peer.call('prompts/get', { name: 'b__greet' })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'b:greet' } }],
    });
    await expect(c.peer.call('prompts/get', { name: 'c__greet' })).rejects.toThrow('Unknown prompt: c__greet');
    const single = await kit.connect({ serverId: 'a' });
    expect(await single.peer.call('prompts/get', { name: 'greet' })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'a:greet' } }],
    });
    expect(
      kit.servers
        .get('a')!
        .received('prompts/get')
        .map((r) => r.params?.name),
    ).toEqual(['greet']);
  });
});
