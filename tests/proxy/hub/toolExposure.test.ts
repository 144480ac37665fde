// The rules of tool exposure, over in-memory transports: a session keeps at most 64 found
// tools, the oldest dropped; found tools never reach another session; call_tool sends the
// server exactly one tools/call, as a direct task-augmented call with a progress token
// would (its name and arguments unwrapped, its `task` and progress token carried, the task
// bound to the calling session); a single-server scope never sees the meta-tools.
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_FOUND_TOOLS } from '../../../src/proxy/hub/economy/foundTools.js';
import { FakeServer, startKit, until, type Kit } from './hubKit.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

type Json = Record<string, any>;
const META = ['search_tools', 'call_tool'];

/** A server of 100 tools in five groups of 20, each group found by its own word. */
function groupsServer(): FakeServer {
  const s = new FakeServer('g', { tools: { listChanged: true }, tasks: { requests: { tools: { call: {} } } } });
  for (let g = 0; g < 5; g++)
    for (let i = 0; i < 20; i++)
      s.tools.push({ name: `t${g}_${i}`, description: `group${g} member`, inputSchema: { type: 'object' } });
  s.handlers['tools/call'] = (req) =>
    req.params?.task ? { task: { taskId: 'tk1', status: 'working' } } : { content: [{ type: 'text', text: 'ok' }] };
  return s;
}

const listNames = async (c: Awaited<ReturnType<Kit['connect']>>) =>
  ((await c.peer.call('tools/list', {})) as { tools: { name: string }[] }).tools.map((t) => t.name);

const search = (c: Awaited<ReturnType<Kit['connect']>>, query: string) =>
  c.peer.call('tools/call', { name: 'search_tools', arguments: { query, limit: 20 } }) as Promise<Json>;

describe('found tools', () => {
  it('are kept per session up to the bound, the oldest dropped, and never listed in another session', async () => {
    kit = await startKit([groupsServer()], { toolExposure: 'search' });
    const c1 = await kit.connect();
    const c2 = await kit.connect();
    expect(await listNames(c1)).toEqual(META);
    expect(await listNames(c2)).toEqual(META);
    for (let g = 0; g < 5; g++) expect((await search(c1, `group${g}`)).structuredContent.tools).toHaveLength(20);
    await until(() => c1.notesOf('notifications/tools/list_changed').length > 0, 'list_changed');

    const listed = await listNames(c1);
    expect(MAX_FOUND_TOOLS).toBe(64);
    expect(listed).toHaveLength(2 + 64);
    for (const g of [2, 3, 4]) for (let i = 0; i < 20; i++) expect(listed).toContain(`g__t${g}_${i}`);
    expect(listed.filter((n) => n.startsWith('g__t0_'))).toEqual([]);
    expect(listed.filter((n) => n.startsWith('g__t1_'))).toHaveLength(4);

    // A round trip after c1 heard of its tools: c2 heard nothing, and lists what it did.
    expect(await listNames(c2)).toEqual(META);
    expect(c2.notesOf('notifications/tools/list_changed')).toEqual([]);
  });
});

describe('call_tool', () => {
  it('sends one tools/call of the named tool, its task and progress token carried, the task bound to the caller', async () => {
    const g = groupsServer();
    kit = await startKit([g], { toolExposure: 'search' });
    const c1 = await kit.connect({}, { tasks: {} });
    const c2 = await kit.connect();
    const created = (await c1.peer.call('tools/call', {
      name: 'call_tool',
      arguments: { name: 'g__t0_1', arguments: { x: 1 } },
      task: { ttl: 5000 },
      _meta: { progressToken: 'p1' },
    })) as Json;
    const calls = g.received('tools/call');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.params).toMatchObject({ name: 't0_1', arguments: { x: 1 }, task: { ttl: 5000 } });
    expect(calls[0]!.params!._meta).toEqual({ progressToken: expect.stringMatching(/^qp\d+$/) });
    // Aggregate scope: the task id as the session sees it, known to its session only.
    const taskId = created.task.taskId as string;
    expect(taskId).toBe('g__tk1');
    g.handlers['tasks/get'] = () => ({ taskId: 'tk1', status: 'working' });
    expect(await c1.peer.request('tasks/get', { taskId })).toMatchObject({ result: { taskId, status: 'working' } });
    expect(await c2.peer.request('tasks/get', { taskId })).toMatchObject({ error: { code: -32602 } });
  });

  it('is no tool of a single-server scope: there the server answers its own tools only', async () => {
    const g = groupsServer();
    kit = await startKit([g], { toolExposure: 'search' });
    const single = await kit.connect({ serverId: 'g' });
    expect(await listNames(single)).toHaveLength(100);
    g.handlers['tools/call'] = (req) => ({
      content: [{ type: 'text', text: `server got ${String(req.params?.name)}` }],
    });
    const answer = (await single.peer.call('tools/call', { name: 'call_tool', arguments: { name: 't0_1' } })) as Json;
    expect(answer.content[0].text).toBe('server got call_tool');
  });
});
