// Tasks across the eras, the other direction: a 2025-11-25 client (SDK v1,
// its experimental tasks API) through the stdio aggregation and the bridge's /mcp/<id> and /mcp to our
// 2026-07-28 server with the tasks extension (tests/fixtures/tasksModernServer.mjs, stdio):
// the 2025 capability in initialize, task-augmented tools/call, tasks/get, tasks/result
// emulated by polling (an input-required task's elicitation asked of the client on the way),
// tasks/cancel and tasks/list answered by the proxy; a plain call the server makes a task of,
// followed by the proxy to its end.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { connectProxy, ensureBuilt, type ProxyHandle } from '../../../helpers/proxyCli.js';
import { cleanupBridges, startBridge } from '../../../helpers/bridgeProcess.js';
import { FIXTURES } from '../../../helpers/paths.js';

const MODERN_TASKS = join(FIXTURES, 'tasksModernServer.mjs');
const entry = { command: process.execPath, args: [MODERN_TASKS] };
const RELATED = 'io.modelcontextprotocol/related-task';

const handles: ProxyHandle[] = [];
const clients: Client[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await cleanupBridges();
});

function answering(client: Client, asked: string[]): void {
  client.setRequestHandler(ElicitRequestSchema, async (r) => {
    const related = (r.params._meta as Record<string, { taskId: string }> | undefined)?.[RELATED]?.taskId;
    asked.push(`${String(r.params.message)}${related ? ' (task)' : ''}`);
    return { action: 'accept', content: { name: 'Ada' } };
  });
}

async function errorOf(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof McpError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected an error');
}

/** The scenario on one client; `prefix` is what tool names carry on its path. */
async function scenario(client: Client, prefix: string, asked: string[]): Promise<void> {
  const caps = client.getServerCapabilities()!;
  expect(caps.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
  const create = (tool: string, args: Record<string, unknown>) =>
    client.request(
      { method: 'tools/call', params: { name: prefix + tool, arguments: args, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );

  const slow = await create('slow', { ms: 80 });
  expect(slow.task).toMatchObject({ status: 'working', statusMessage: 'started', ttl: 60_000, pollInterval: 30 });
  expect((slow.task as Record<string, unknown>).ttlMs).toBeUndefined();
  const got = await client.experimental.tasks.getTask(slow.task.taskId);
  expect(got).toMatchObject({ taskId: slow.task.taskId, ttl: 60_000 });
  expect((got as Record<string, unknown>).result).toBeUndefined();
  const result = await client.experimental.tasks.getTaskResult(slow.task.taskId, CallToolResultSchema);
  expect(result.content).toEqual([{ type: 'text', text: 'slow done 80' }]);
  expect((result._meta as Record<string, { taskId: string }>)[RELATED]!.taskId).toBe(slow.task.taskId);
  expect((await client.experimental.tasks.getTask(slow.task.taskId)).status).toBe('completed');

  // The stream API: created, polled, result.
  const kinds: string[] = [];
  let streamed: unknown;
  for await (const m of client.experimental.tasks.callToolStream(
    { name: prefix + 'slow', arguments: { ms: 40 } },
    CallToolResultSchema,
    {
      task: { ttl: 60_000 },
    },
  )) {
    kinds.push(m.type);
    if (m.type === 'result') streamed = m.result;
    if (m.type === 'error') throw m.error;
  }
  expect(kinds[0]).toBe('taskCreated');
  expect(kinds.at(-1)).toBe('result');
  expect(streamed).toMatchObject({ content: [{ text: 'slow done 40' }] });

  // An input-required task: its elicitation reaches the client while it waits in tasks/result.
  const ask = await create('ask', { question: 'who are you?' });
  const answer = await client.experimental.tasks.getTaskResult(ask.task.taskId, CallToolResultSchema);
  expect(answer.content).toEqual([{ type: 'text', text: 'answer: Ada' }]);
  expect(asked).toEqual(['who are you? (task)']);

  // A task failing with a JSON-RPC error: tasks/result is that error.
  const broken = await create('broken', {});
  expect(
    await errorOf(client.experimental.tasks.getTaskResult(broken.task.taskId, CallToolResultSchema)),
  ).toMatchObject({ code: -32603 });

  // Cancel answers the task; the list is this session's tasks as they are now.
  const long = await create('slow', { ms: 60_000 });
  const cancelled = await client.experimental.tasks.cancelTask(long.task.taskId);
  expect(cancelled).toMatchObject({ taskId: long.task.taskId, status: 'cancelled' });
  const listed = await client.experimental.tasks.listTasks();
  const byId = new Map(listed.tasks.map((t) => [t.taskId, t.status]));
  expect(byId.get(slow.task.taskId)).toBe('completed');
  expect(byId.get(long.task.taskId)).toBe('cancelled');
  expect(byId.get(broken.task.taskId)).toBe('failed');
  expect(await errorOf(client.experimental.tasks.getTask('not-mine'))).toMatchObject({ code: -32602 });

  // A plain call the server makes a task of (the proxy declares the extension): followed to its end.
  const plainTask = await client.callTool({ name: prefix + 'ask', arguments: { question: 'plain?' } });
  expect(plainTask.content).toEqual([{ type: 'text', text: 'answer: Ada' }]);
  expect(asked).toEqual(['who are you? (task)', 'plain?']);
  expect((await client.callTool({ name: prefix + 'slow', arguments: { ms: 30 } })).content).toEqual([
    { type: 'text', text: 'slow done 30' },
  ]);

  // A plain call of a sync tool, with no task param: as it was.
  const greet = await client.callTool({ name: prefix + 'greet', arguments: { name: 'Bo' } });
  expect(greet.content).toEqual([{ type: 'text', text: 'Hello, Bo!' }]);
  expect((greet._meta as Record<string, unknown>)['x-saw']).toEqual({ task: false });
}

describe('a 2025-11-25 client with tasks, a 2026-07-28 server with the tasks extension', () => {
  it('through the stdio aggregation', async () => {
    const h = await connectProxy(['--config', JSON.stringify({ mcpServers: { m: entry } }), '--no-watchdog'], {
      elicitation: { form: {} },
    });
    handles.push(h);
    const asked: string[] = [];
    answering(h.client, asked);
    await h.client.listTools();
    await scenario(h.client, 'm__', asked);
    // The extension has no tasks/list: the proxy answers it, one page.
    expect((await h.client.experimental.tasks.listTasks()).nextCursor).toBeUndefined();
  });

  it("through the bridge's /mcp/<id> and /mcp", async () => {
    const b = await startBridge({ config: { mcpServers: { m: entry } } });
    for (const [path, prefix] of [
      ['/mcp/m', ''],
      ['/mcp', 'm__'],
    ] as const) {
      const client = new Client({ name: 'legacy-http', version: '1' }, { capabilities: { elicitation: { form: {} } } });
      clients.push(client);
      const asked: string[] = [];
      answering(client, asked);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(b.url + path), { requestInit: { headers: b.auth } }),
      );
      await scenario(client, prefix, asked);
    }
  });
});
