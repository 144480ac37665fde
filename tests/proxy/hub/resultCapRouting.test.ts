// Which answers of an aggregate the result cap reaches (hub/economy/resultCap.ts), over
// in-memory servers: a tools/call result and a task's tasks/result over the cap are cut, the
// URI reads back the whole; a prompt or a resource read of the same size is not a tool result
// and passes; a single-server session passes everything; a subscription to a kept result is
// answered by the session, never sent to a server.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, type Kit } from './hubKit.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

type Obj = Record<string, unknown>;
const BIG = 'x'.repeat(5000);
const CAP = { maxResultBytes: 2048 };
const RELATED = 'io.modelcontextprotocol/related-task';

function bigServer(): FakeServer {
  const s = new FakeServer('a', {
    tools: {},
    prompts: {},
    resources: {},
    tasks: { requests: { tools: { call: {} } } },
  });
  s.tools = [{ name: 'big', inputSchema: { type: 'object' } }];
  s.resources = [{ uri: 'file:///big.txt', name: 'big' }];
  s.handlers['tools/call'] = (req) =>
    req.params?.task === undefined
      ? { content: [{ type: 'text', text: BIG }] }
      : { task: { taskId: 't1', status: 'working', createdAt: 'now', lastUpdatedAt: 'now', ttl: 1000 } };
  s.handlers['tasks/result'] = () => ({
    content: [{ type: 'text', text: BIG }],
    _meta: { [RELATED]: { taskId: 't1' } },
  });
  s.handlers['prompts/list'] = () => ({ prompts: [{ name: 'p' }] });
  s.handlers['prompts/get'] = () => ({ messages: [{ role: 'user', content: { type: 'text', text: BIG } }] });
  s.handlers['resources/read'] = () => ({ contents: [{ uri: 'file:///big.txt', text: BIG }] });
  return s;
}

const uriIn = (r: Obj) => /the uri "([^"]+)"/.exec(String(((r.content as Obj[]).at(-1) as Obj).text))![1]!;

describe('the result cap in the hub', () => {
  it('cuts an aggregate tool result and a task result, and reads each back whole', async () => {
    const a = bigServer();
    kit = await startKit([a], CAP);
    const c = await kit.connect();
    const plain = (await c.peer.call('tools/call', { name: 'a__big', arguments: {} })) as Obj;
    expect(JSON.stringify(plain).length).toBeLessThanOrEqual(2048);
    const read = (await c.peer.call('resources/read', { uri: uriIn(plain) })) as { contents: Obj[] };
    expect(read.contents[0]!.text).toBe(BIG);

    const created = (await c.peer.call('tools/call', { name: 'a__big', arguments: {}, task: { ttl: 1000 } })) as Obj;
    const taskId = (created.task as Obj).taskId;
    const result = (await c.peer.call('tasks/result', { taskId })) as Obj;
    expect(JSON.stringify(result).length).toBeLessThanOrEqual(2048);
    expect(result._meta).toEqual({ [RELATED]: { taskId } });
    expect(
      ((await c.peer.call('resources/read', { uri: uriIn(result) })) as { contents: Obj[] }).contents[0]!.text,
    ).toBe(BIG);
    // The kept results are the session's: nothing of them reached the server.
    expect(a.received('resources/read')).toEqual([]);
  });

  it('passes a prompt and a resource read of the same size, and everything in a single-server session', async () => {
    kit = await startKit([bigServer()], CAP);
    const c = await kit.connect();
    expect(await c.peer.call('prompts/get', { name: 'a__p' })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: BIG } }],
    });
    expect(await c.peer.call('resources/read', { uri: 'file:///big.txt' })).toEqual({
      contents: [{ uri: 'file:///big.txt', text: BIG }],
    });
    const single = await kit.connect({ serverId: 'a' });
    expect(await single.peer.call('tools/call', { name: 'big', arguments: {} })).toEqual({
      content: [{ type: 'text', text: BIG }],
    });
  });

  it('answers a subscription to a kept result itself', async () => {
    const a = bigServer();
    kit = await startKit([a], CAP);
    const c = await kit.connect();
    const uri = uriIn((await c.peer.call('tools/call', { name: 'a__big', arguments: {} })) as Obj);
    expect(await c.peer.call('resources/subscribe', { uri })).toEqual({});
    expect(await c.peer.call('resources/unsubscribe', { uri })).toEqual({});
    expect(a.received('resources/subscribe')).toEqual([]);
  });

  it('advertises resources in an aggregate while a cap is on, and not with every cap "off"', async () => {
    const toolsOnly = () => {
      const s = new FakeServer('a', { tools: {} });
      s.tools = [{ name: 'big', inputSchema: { type: 'object' } }];
      return s;
    };
    kit = await startKit([toolsOnly()]);
    expect((await kit.connect()).initResult!.capabilities).toEqual({
      tools: { listChanged: true },
      resources: { listChanged: true },
    });
    await kit.close();
    kit = await startKit([toolsOnly()], { maxResultBytes: 'off' });
    expect((await kit.connect()).initResult!.capabilities).toEqual({ tools: { listChanged: true } });
  });
});
