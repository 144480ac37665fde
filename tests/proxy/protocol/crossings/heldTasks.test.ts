// Tasks across the eras: a 2026-07-28 client using the tasks extension
// (io.modelcontextprotocol/tasks, SEP-2663) against the 2025-11-25 tasks of our SDK v1
// fixture (taskServer.mjs), over the stdio aggregation (raw JSON-RPC: SDK v2 2.4.0 has no
// tasks extension) and over the bridge's stateless POSTs, where every request is a session of
// its own; and the 2026 passthrough against our hand-written 2026 tasks server
// (tasksModernServer.mjs). The 2025 client of a 2026 server is in inputRoundTasks.test.ts.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cleanup, CliProcess, configJson, waitFor } from '../../../helpers/cliProcess.js';
import { ensureBuilt, fixtureEntry } from '../../../helpers/proxyCli.js';
import { cleanupBridges, startBridge, type BridgeProcess } from '../../../helpers/bridgeProcess.js';
import { FIXTURES } from '../../../helpers/paths.js';
import { TASK_SERVER } from '../../../helpers/taskPaths.js';

const EXT = 'io.modelcontextprotocol/tasks';
const MODERN_TASKS = join(FIXTURES, 'tasksModernServer.mjs');
const taskEntry = { command: process.execPath, args: [TASK_SERVER], clientCapabilities: { elicitation: true } };
const modernEntry = { command: process.execPath, args: [MODERN_TASKS] };
type Msg = Record<string, any>;

function envelope(withTasks: boolean): Msg {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': withTasks ? { elicitation: {}, extensions: { [EXT]: {} } } : {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '1' },
  };
}

/** A raw 2026-07-28 client of the stdio proxy. */
class Modern {
  private next = 1;
  constructor(readonly cli: CliProcess) {}
  async request(method: string, params: Msg = {}, withTasks = true): Promise<Msg> {
    const id = this.next++;
    this.cli.send({
      jsonrpc: '2.0',
      id,
      method,
      params: { ...params, _meta: { ...params._meta, ...envelope(withTasks) } },
    });
    return this.cli.reply(id);
  }
}

function stdioModern(servers: Record<string, unknown>): Modern {
  return new Modern(new CliProcess(['--config', configJson(servers), '--no-watchdog']));
}

/** Polls tasks/get (bounded) until the task is terminal. */
function terminal(get: () => Promise<Msg>, limitMs = 20_000): Promise<Msg> {
  return waitFor(
    async () => {
      const r = await get();
      return (r.error || ['completed', 'failed', 'cancelled'].includes(r.result?.status)) && r;
    },
    limitMs,
    'the task to be terminal',
    30,
  );
}

/** Polls tasks/get (bounded) until the task has `status`; its result. */
function reachedStatus(get: () => Promise<Msg>, status: string): Promise<Msg> {
  return waitFor(
    async () => {
      const r = (await get()).result;
      return r?.status === status && r;
    },
    20_000,
    `the task to be ${status}`,
    30,
  );
}

beforeAll(() => ensureBuilt());
afterEach(async () => {
  await cleanup();
  await cleanupBridges();
});

describe('a 2026-07-28 client with the tasks extension, a 2025-11-25 server with tasks', () => {
  it('discover advertises the extension only when a server in scope has tasks', async () => {
    const withTasks = stdioModern({ t: taskEntry, old: fixtureEntry('old') });
    const d = await withTasks.request('server/discover');
    expect(d.result.capabilities.extensions).toEqual({ [EXT]: {} });
    expect(d.result.capabilities.tasks).toBeUndefined();
    const without = stdioModern({ old: fixtureEntry('old') });
    expect((await without.request('server/discover')).result.capabilities.extensions).toBeUndefined();
  });

  it('creates the 2025 task, answers tasks/get with the result inlined, maps a failed tool result to completed', async () => {
    const c = stdioModern({ t: taskEntry });
    const created = await c.request('tools/call', { name: 't__count-task', arguments: { n: 3 } });
    const task = created.result;
    expect(task).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 60_000, pollIntervalMs: 50 });
    expect(task.task).toBeUndefined();
    expect(task.ttl).toBeUndefined();
    expect(task.taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(typeof task.createdAt).toBe('string');
    const first = await c.request('tasks/get', { taskId: task.taskId });
    expect(first.result).toMatchObject({ resultType: 'complete', taskId: task.taskId });
    const done = await terminal(() => c.request('tasks/get', { taskId: task.taskId }));
    expect(done.result).toMatchObject({
      resultType: 'complete',
      status: 'completed',
      taskId: task.taskId,
      result: { content: [{ type: 'text', text: 'counted to 3' }] },
    });
    expect(done.result.result._meta?.['io.modelcontextprotocol/related-task']).toBeUndefined();
    // Terminal: the same answer again (kept by the proxy).
    expect((await c.request('tasks/get', { taskId: task.taskId })).result).toEqual(done.result);

    const failing = (await c.request('tools/call', { name: 't__count-task', arguments: { n: -1 } })).result;
    const failed = await terminal(() => c.request('tasks/get', { taskId: failing.taskId }));
    expect(failed.result).toMatchObject({
      status: 'completed',
      result: { isError: true, content: [{ text: 'counted to -1' }] },
    });
  });

  it('decides per tool: optional runs as a task only for a client with the extension; required without it is -32021', async () => {
    const c = stdioModern({ t: taskEntry });
    const plain = await c.request('tools/call', { name: 't__echo-maybe', arguments: { text: 'a' } }, false);
    expect(plain.result).toMatchObject({ resultType: 'complete', content: [{ text: 'echo: a' }] });
    // A legacy `task` param from a 2026 client is ignored, not passed on.
    const legacyParam = await c.request(
      'tools/call',
      { name: 't__echo-maybe', arguments: { text: 'b' }, task: { ttl: 1000 } },
      false,
    );
    expect(legacyParam.result).toMatchObject({ resultType: 'complete', content: [{ text: 'echo: b' }] });
    const asTask = await c.request('tools/call', { name: 't__echo-maybe', arguments: { text: 'c' } });
    expect(asTask.result.resultType).toBe('task');
    const required = await c.request('tools/call', { name: 't__count-task', arguments: { n: 1 } }, false);
    expect(required.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [EXT]: {} } } },
    });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const r = await c.request(method, { taskId: asTask.result.taskId, inputResponses: {} }, false);
      expect(r.error?.code, method).toBe(-32021);
    }
    expect((await c.request('tasks/get', { taskId: 'not-a-task' })).error?.code).toBe(-32602);
    expect((await c.request('tasks/result', { taskId: asTask.result.taskId })).error?.code).toBe(-32601);
    expect((await c.request('tasks/list', {})).error?.code).toBe(-32601);
  });

  it('shows the elicitation of an input-required task as inputRequests and answers it with tasks/update', async () => {
    const c = stdioModern({ t: taskEntry });
    const task = (await c.request('tools/call', { name: 't__ask-task', arguments: { question: 'who are you?' } }))
      .result;
    const asked = await reachedStatus(() => c.request('tasks/get', { taskId: task.taskId }), 'input_required');
    const keys = Object.keys(asked.inputRequests);
    expect(keys).toHaveLength(1);
    const input = asked.inputRequests[keys[0]!];
    expect(input).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'who are you?', requestedSchema: { required: ['name'] } },
    });
    expect(input.params._meta?.['io.modelcontextprotocol/related-task']).toBeUndefined();
    const ack = await c.request('tasks/update', {
      taskId: task.taskId,
      inputResponses: { [keys[0]!]: { action: 'accept', content: { name: 'Ada' } }, other: { action: 'decline' } },
    });
    expect(ack.result).toEqual({ resultType: 'complete' });
    const done = await terminal(() => c.request('tasks/get', { taskId: task.taskId }));
    expect(done.result).toMatchObject({ status: 'completed', result: { content: [{ text: 'answer: Ada' }] } });
  });

  it('cancels with an empty acknowledgement, also for a task already terminal', async () => {
    const c = stdioModern({ t: taskEntry });
    const task = (await c.request('tools/call', { name: 't__ask-task', arguments: { question: 'never answered' } }))
      .result;
    const ack = await c.request('tasks/cancel', { taskId: task.taskId });
    expect(ack.result).toEqual({ resultType: 'complete' });
    const after = await terminal(() => c.request('tasks/get', { taskId: task.taskId }));
    expect(after.result?.status, JSON.stringify(after)).toBe('cancelled');
    expect((await c.request('tasks/cancel', { taskId: task.taskId })).result).toEqual({ resultType: 'complete' });
  });
  it('relays the task status to a subscriptions/listen that names the task, the result inlined', async () => {
    const c = stdioModern({ t: taskEntry });
    const task = (await c.request('tools/call', { name: 't__ask-task', arguments: { question: 'listen?' } })).result;
    const listenId = 'listen-1';
    c.cli.send({
      jsonrpc: '2.0',
      id: listenId,
      method: 'subscriptions/listen',
      params: { notifications: { taskIds: [task.taskId, 'unknown'] }, _meta: envelope(true) },
    });
    const of = () =>
      c.cli.messages().filter((m) => m.method === 'notifications/tasks' && m.params.taskId === task.taskId);
    const ack = await waitFor(
      () => c.cli.messages().find((m) => m.method === 'notifications/subscriptions/acknowledged'),
      5000,
      'ack',
    );
    expect(ack.params.notifications.taskIds).toEqual([task.taskId]);
    const asking = await waitFor(
      () => of().find((m) => m.params.status === 'input_required'),
      5000,
      'input_required on the listen',
    );
    expect(asking.params._meta['io.modelcontextprotocol/subscriptionId']).toBe(listenId);
    const [key] = Object.keys(asking.params.inputRequests);
    await c.request('tasks/update', {
      taskId: task.taskId,
      inputResponses: { [key!]: { action: 'accept', content: { name: 'Listener' } } },
    });
    const done = await waitFor(
      () => of().find((m) => m.params.status === 'completed'),
      5000,
      'completed on the listen',
    );
    expect(done.params.result.content[0].text).toBe('answer: Listener');
    // Asking for task notifications without the extension: -32021.
    const refused = await c.request('subscriptions/listen', { notifications: { taskIds: [task.taskId] } }, false);
    expect(refused.error?.code).toBe(-32021);
  });
});

describe('the bridge: stateless 2026 requests reach one task', () => {
  async function post(b: BridgeProcess, path: string, id: number, method: string, params: Msg): Promise<Msg> {
    const name = method === 'tools/call' ? params.name : params.taskId;
    const res = await fetch(b.url + path, {
      method: 'POST',
      headers: {
        ...b.auth,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(name ? { 'mcp-name': String(name) } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(true) } }),
    });
    return (await res.json()) as Msg;
  }

  it('creates on one POST and polls it to the inlined result on others (/mcp and /mcp/<id>)', async () => {
    const b = await startBridge({ config: { mcpServers: { t: taskEntry } } });
    for (const [path, tool] of [
      ['/mcp', 't__count-task'],
      ['/mcp/t', 'count-task'],
    ] as const) {
      const created = await post(b, path, 1, 'tools/call', { name: tool, arguments: { n: 2 } });
      expect(created.result?.resultType, JSON.stringify(created)).toBe('task');
      let n = 2;
      const done = await terminal(() => post(b, path, n++, 'tasks/get', { taskId: created.result.taskId }));
      expect(done.result).toMatchObject({ status: 'completed', result: { content: [{ text: 'counted to 2' }] } });
    }
    // Mcp-Name must name the task.
    const res = await fetch(b.url + '/mcp', {
      method: 'POST',
      headers: {
        ...b.auth,
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tasks/get',
        'mcp-name': 'other',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tasks/get',
        params: { taskId: 'x', _meta: envelope(true) },
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Msg).error.code).toBe(-32020);
  });
});

describe('both ends 2026-07-28: tasks pass through', () => {
  it('prefixes only the id in aggregate scope, beside translated tasks of a 2025 server', async () => {
    const c = stdioModern({ m: modernEntry, t: taskEntry });
    const d = await c.request('server/discover');
    expect(d.result.capabilities.extensions).toEqual({ [EXT]: {} });
    const created = (await c.request('tools/call', { name: 'm__slow', arguments: { ms: 50 } })).result;
    expect(created).toMatchObject({
      resultType: 'task',
      status: 'working',
      statusMessage: 'started',
      'x-fixture': 'kept',
      ttlMs: 60_000,
      pollIntervalMs: 30,
    });
    expect(created.taskId).toMatch(/^m__[0-9a-f-]{36}$/);
    const done = await terminal(() => c.request('tasks/get', { taskId: created.taskId }));
    expect(done.result).toMatchObject({
      taskId: created.taskId,
      status: 'completed',
      'x-fixture': 'kept',
      _meta: { 'x-fixture-meta': 1 },
      result: { content: [{ text: 'slow done 50' }] },
    });
    const ask = (await c.request('tools/call', { name: 'm__ask', arguments: { question: 'name?' } })).result;
    const waiting = await reachedStatus(() => c.request('tasks/get', { taskId: ask.taskId }), 'input_required');
    expect(waiting).toMatchObject({
      status: 'input_required',
      inputRequests: { q1: { method: 'elicitation/create' } },
    });
    expect(
      (
        await c.request('tasks/update', {
          taskId: ask.taskId,
          inputResponses: { q1: { action: 'accept', content: { name: 'Bo' } } },
        })
      ).result,
    ).toEqual({
      resultType: 'complete',
    });
    expect((await terminal(() => c.request('tasks/get', { taskId: ask.taskId }))).result.result.content[0].text).toBe(
      'answer: Bo',
    );
    // The 2026 server gates on the client's own envelope.
    expect((await c.request('tools/call', { name: 'm__ask', arguments: { question: 'x' } }, false)).error?.code).toBe(
      -32021,
    );
    // A 2025 server's task beside it: each id reaches its own server.
    const old = (await c.request('tools/call', { name: 't__count-task', arguments: { n: 5 } })).result;
    expect(old.taskId).not.toMatch(/^(m|t)__/);
    expect((await terminal(() => c.request('tasks/get', { taskId: old.taskId }))).result.result.content[0].text).toBe(
      'counted to 5',
    );
    expect((await c.request('tasks/get', { taskId: created.taskId })).result.status).toBe('completed');
  });

  it("is the server's wire in single scope (/mcp/<id>): its ids and every field", async () => {
    const b = await startBridge({ config: { mcpServers: { m: modernEntry } } });
    const call = async (id: number, method: string, params: Msg) => {
      const res = await fetch(b.url + '/mcp/m', {
        method: 'POST',
        headers: {
          ...b.auth,
          'content-type': 'application/json',
          accept: 'application/json',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          'mcp-name': String(params.name ?? params.taskId),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(true) } }),
      });
      return (await res.json()) as Msg;
    };
    const created = (await call(1, 'tools/call', { name: 'slow', arguments: { ms: 30 } })).result;
    expect(created.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(created).sort()).toEqual([
      '_meta',
      'createdAt',
      'lastUpdatedAt',
      'pollIntervalMs',
      'resultType',
      'status',
      'statusMessage',
      'taskId',
      'ttlMs',
      'x-fixture',
    ]);
    let n = 2;
    const done = await terminal(() => call(n++, 'tasks/get', { taskId: created.taskId }));
    expect(done.result).toMatchObject({ taskId: created.taskId, status: 'completed', 'x-fixture': 'kept' });
    expect((await call(n++, 'tasks/cancel', { taskId: 'unknown' })).error?.code).toBe(-32602);
  });
});
