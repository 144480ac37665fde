// The tool-call stage of a 2025 client's task-augmented call (hub/toolCall/taskAugmented.ts):
// the task the server creates is bound to the session (its tasks/get reaches it); a plain call
// goes on.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, startKit, until, type Kit } from '../hubKit.js';
import { openSession, runStage, toolCall } from './stageKit.js';
import { taskAugmented } from '../../../../src/proxy/hub/toolCall/taskAugmented.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const TASK = { taskId: 't1', status: 'working', createdAt: 'now', lastUpdatedAt: 'now', ttl: 1000 };

describe('taskAugmented', () => {
  it('binds the created task to the session, and hands on a plain call', async () => {
    const a = new FakeServer('a', { tools: {}, tasks: { requests: { tools: { call: {} } }, get: {} } });
    a.handlers['tools/call'] = () => ({ task: TASK });
    a.handlers['tasks/get'] = () => TASK;
    kit = await startKit([a]);
    const at = await openSession(kit);
    const owned = (extra: Record<string, unknown> = {}) =>
      Object.assign(toolCall(kit!, at, 'a__long', extra), { upstream: kit!.hub.upstream('a'), timeoutMs: 1000 });

    const plain = owned();
    expect((await runStage(taskAugmented, plain, at)).passed).toBe(plain);

    const created = await runStage(taskAugmented, owned({ task: { ttl: 1000 } }), at);
    expect(created.passed).toBeUndefined();
    const taskId = (created.answer?.result?.task as { taskId: string }).taskId;
    expect(a.received('tools/call')[0]!.params?.task).toEqual({ ttl: 1000 });
    await at.send({ jsonrpc: '2.0', id: 'get', method: 'tasks/get', params: { taskId } });
    await until(() => at.received.some((m) => (m as { id?: unknown }).id === 'get'), 'the tasks/get answer');
    const got = at.received.find((m) => (m as { id?: unknown }).id === 'get') as { result?: { status?: string } };
    expect(got.result?.status).toBe('working');
    expect(a.received('tasks/get')[0]!.params?.taskId).toBe('t1');
  });
});
