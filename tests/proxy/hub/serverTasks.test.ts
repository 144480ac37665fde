// Server-side tasks in the hub, over in-memory transports (taskTable.ts, taskRequests.ts): a
// status the server sends before its CreateTaskResult reaches the owner (just before that
// result); two (server, task id) pairs that meet at one exposed id stay apart; an owner that
// closes leaves its task to the server (no tasks/cancel: tasks outlive their requestor's
// connection), and no other session reaches it.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, until, type Kit } from './hubKit.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const TASK_CAPS = { tools: { listChanged: true }, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };

function taskServer(id: string, taskId: string): FakeServer {
  const s = new FakeServer(id, TASK_CAPS);
  s.tools = [{ name: 'work', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }];
  s.handlers['tools/call'] = async (_req, server) => {
    // As the SDK does: the first status goes out before the CreateTaskResult.
    await server.peer!.notify('notifications/tasks/status', { taskId, status: 'working' });
    return { task: { taskId, status: 'working', createdAt: 'now', lastUpdatedAt: 'now', ttl: 1000 } };
  };
  s.handlers['tasks/get'] = (req) => ({
    taskId: req.params?.taskId,
    status: 'working',
    createdAt: 'now',
    lastUpdatedAt: 'now',
    ttl: 1000,
  });
  s.handlers['tasks/cancel'] = (req) => ({
    taskId: req.params?.taskId,
    status: 'cancelled',
    createdAt: 'now',
    lastUpdatedAt: 'now',
    ttl: 1000,
  });
  return s;
}

const callAsTask = (name: string) => ({ name, arguments: {}, task: { ttl: 1000 } });

describe('server-side tasks in the hub', () => {
  it('a status sent before the CreateTaskResult reaches the owner first; colliding exposed ids stay apart and route back', async () => {
    const a = taskServer('a', 'b__c');
    const ab = taskServer('a__b', 'c');
    kit = await startKit([a, ab]);
    const c = await kit.connect({}, {});
    const one = (await c.peer.call('tools/call', callAsTask('a__work'))) as { task: { taskId: string } };
    expect(one.task.taskId).toBe('a__b__c');
    const statuses = c.notesOf('notifications/tasks/status');
    expect(statuses.map((x) => x.n.params)).toEqual([{ taskId: 'a__b__c', status: 'working' }]);
    const two = (await c.peer.call('tools/call', callAsTask('a__b__work'))) as { task: { taskId: string } };
    expect(two.task.taskId).toMatch(/^a__b__c#\d+$/);
    expect(await c.peer.call('tasks/get', { taskId: one.task.taskId })).toMatchObject({ taskId: one.task.taskId });
    expect(a.received('tasks/get').at(-1)!.params).toMatchObject({ taskId: 'b__c' });
    expect(await c.peer.call('tasks/get', { taskId: two.task.taskId })).toMatchObject({ taskId: two.task.taskId });
    expect(ab.received('tasks/get').at(-1)!.params).toMatchObject({ taskId: 'c' });
  });

  it('an owner that closes leaves its task on the server (no tasks/cancel), and nobody else reaches it', async () => {
    const a = taskServer('a', 't-1');
    kit = await startKit([a]);
    const owner = await kit.connect({ serverId: 'a' }, {});
    const other = await kit.connect({ serverId: 'a' }, {});
    const created = (await owner.peer.call('tools/call', callAsTask('work'))) as { task: { taskId: string } };
    expect(created.task.taskId).toBe('t-1');
    expect(await other.peer.request('tasks/get', { taskId: 't-1' })).toMatchObject({ error: { code: -32602 } });
    expect(await other.peer.request('tasks/cancel', { taskId: 't-1' })).toMatchObject({ error: { code: -32602 } });
    await owner.peer.close();
    await until(() => kit!.hub.sessions.size === 1, 'owner closed');
    await a.peer!.notify('notifications/tasks/status', { taskId: 't-1', status: 'completed' });
    expect(await other.peer.request('tasks/get', { taskId: 't-1' })).toMatchObject({ error: { code: -32602 } });
    expect(a.received('tasks/cancel')).toEqual([]);
    expect(a.received('tasks/get')).toEqual([]);
    expect(other.notesOf('notifications/tasks/status')).toEqual([]);
  });
});
