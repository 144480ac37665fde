// Client-side tasks (a server's task-augmented sampling, sessions being the receivers) on one
// shared upstream, over in-memory transports (serverRequestRouter.ts, taskTable.ts): the
// request reaches a session that declared the augmentation as is, and one that did not
// without its `task`; two sessions that give the server the same task id are told apart (the
// second gets a `#<n>` suffix upstream); the server's tasks/get and tasks/cancel reach the
// owner under its own id; tasks/list merges the owners' tasks; a closed owner's task is
// "not found"; a session's notifications/tasks/status reaches the server under the id it knows.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, until, type FakeClient, type Kit } from './hubKit.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const TASKS = { sampling: {}, tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } } };
const SAMPLE = { messages: [], maxTokens: 1, task: { ttl: 1000 } };

function runsTasks(c: FakeClient, taskId: string): void {
  c.answer = (req) => {
    if (req.method === 'sampling/createMessage')
      return req.params?.task
        ? { task: { taskId, status: 'working' } }
        : { model: 'plain', role: 'assistant', content: { type: 'text', text: 'p' } };
    if (req.method === 'tasks/get' || req.method === 'tasks/cancel')
      return { taskId: req.params?.taskId, status: req.method === 'tasks/get' ? 'working' : 'cancelled' };
    if (req.method === 'tasks/list')
      return {
        tasks: [
          { taskId, status: 'working' },
          { taskId: 'not-for-this-server', status: 'working' },
        ],
      };
    return {};
  };
}

describe('client-side tasks on a shared upstream', () => {
  it('are bound to the session that created them, told apart when two sessions use one id, and routed back', async () => {
    const a = new FakeServer('a');
    kit = await startKit([a]);
    const c1 = await kit.connect({}, TASKS);
    runsTasks(c1, 'same');
    const first = await a.peer!.request('sampling/createMessage', SAMPLE);
    expect(first).toMatchObject({ result: { task: { taskId: 'same' } } });
    const c2 = await kit.connect({}, TASKS); // now the most recently active: gets the next one
    runsTasks(c2, 'same');
    const second = await a.peer!.request('sampling/createMessage', SAMPLE);
    const visible = (second as unknown as { result: { task: { taskId: string } } }).result.task.taskId;
    expect(visible).toMatch(/^same#\d+$/);
    expect(c2.requests.at(-1)!.req.params?.task).toEqual({ ttl: 1000 });

    expect(await a.peer!.request('tasks/get', { taskId: visible })).toMatchObject({
      result: { taskId: visible, status: 'working' },
    });
    expect(c2.requests.at(-1)!.req).toMatchObject({ method: 'tasks/get', params: { taskId: 'same' } });
    expect(await a.peer!.request('tasks/cancel', { taskId: 'same' })).toMatchObject({
      result: { taskId: 'same', status: 'cancelled' },
    });
    expect(c1.requests.at(-1)!.req.method).toBe('tasks/cancel');

    const listed = (await a.peer!.request('tasks/list', {})) as unknown as { result: { tasks: { taskId: string }[] } };
    expect(listed.result.tasks.map((t) => t.taskId).sort()).toEqual(['same', visible].sort());

    await c2.peer.notify('notifications/tasks/status', { taskId: 'same', status: 'completed' });
    await until(() => a.receivedNotes('notifications/tasks/status').length > 0, 'status upstream');
    expect(a.receivedNotes('notifications/tasks/status')[0].params).toMatchObject({
      taskId: visible,
      status: 'completed',
    });

    await c2.peer.close();
    await until(() => kit!.hub.sessions.size === 1, 'c2 closed');
    expect(await a.peer!.request('tasks/get', { taskId: visible })).toMatchObject({ error: { code: -32602 } });
    expect(await a.peer!.request('tasks/get', { taskId: 'never-created' })).toMatchObject({ error: { code: -32602 } });
  });

  it('reach a session that did not declare task augmentation without their task field, and the server gets the plain result', async () => {
    const a = new FakeServer('a');
    kit = await startKit([a]);
    const c = await kit.connect({}, { sampling: {} });
    runsTasks(c, 'unused');
    expect(await a.peer!.request('sampling/createMessage', SAMPLE)).toMatchObject({ result: { model: 'plain' } });
    expect(c.requests[0].req.params).not.toHaveProperty('task');
  });
});
