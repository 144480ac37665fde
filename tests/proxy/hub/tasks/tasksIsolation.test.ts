// Tasks on a shared upstream: a session sees and can touch only its own tasks (the proxy
// binds each task to the session that created it, as the spec asks of a receiver with an
// authorization context), hears only its own tasks' status, and keeps nothing of another
// session's after that one closed. And tasks/list in aggregate scope is merged across
// servers with pagination (one upstream page per page).
import { afterAll, describe, expect, it } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { startBridge } from '../../../helpers/bridgeProcess.js';
import { waitFor } from '../../../helpers/proxyCli.js';
import { cleanupPaths, FULL_FLAGS, fullClient, stdioAggregation, taskServer } from '../../../helpers/taskPaths.js';

afterAll(() => cleanupPaths(), 30_000);

async function codeOf(p: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof McpError) return err.code;
    throw err;
  }
}

const createTask = (client: Client, name: string, n = 3) =>
  client.request(
    { method: 'tools/call', params: { name, arguments: { n }, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );

describe.each([
  ['/mcp/t', ''],
  ['/mcp', 't__'],
])('bridge %s: sessions sharing one upstream', (path, prefix) => {
  it("a session sees only its own tasks; another session's id gets -32602 for get, result and cancel", async () => {
    const b = await startBridge({
      config: { mcpServers: { t: { ...taskServer.stdio, clientCapabilities: FULL_FLAGS } } },
    });
    const connect = async () => {
      const c = fullClient();
      await c.client.connect(
        new StreamableHTTPClientTransport(new URL(b.url + path), { requestInit: { headers: b.auth } }),
      );
      return c;
    };
    const a = await connect();
    const other = await connect();
    try {
      const mine = (await createTask(a.client, `${prefix}count-task`)).task.taskId;
      const theirs = (await createTask(other.client, `${prefix}count-task`, 4)).task.taskId;
      expect((await a.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([mine]);
      expect((await other.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([theirs]);
      expect(await codeOf(other.client.experimental.tasks.getTask(mine))).toBe(-32602);
      expect(await codeOf(other.client.experimental.tasks.getTaskResult(mine, CallToolResultSchema))).toBe(-32602);
      expect(await codeOf(other.client.experimental.tasks.cancelTask(mine))).toBe(-32602);
      // The refused cancel did not reach the server: the owner's task completes.
      expect(JSON.stringify(await a.client.experimental.tasks.getTaskResult(mine, CallToolResultSchema))).toContain(
        'counted to 3',
      );
      await waitFor(() => a.seen.statuses.some((s) => s.taskId === mine && s.status === 'completed'), 5000);
      await waitFor(() => other.seen.statuses.some((s) => s.taskId === theirs && s.status === 'completed'), 5000);
      expect(a.seen.statuses.every((s) => s.taskId === mine)).toBe(true);
      expect(other.seen.statuses.every((s) => s.taskId === theirs)).toBe(true);
      // The owner closes: its task stays the server's (no cancel), and nobody else may reach it.
      await a.client.close();
      const late = await connect();
      expect(await codeOf(late.client.experimental.tasks.getTask(mine))).toBe(-32602);
      expect((await late.client.experimental.tasks.listTasks()).tasks).toEqual([]);
      await late.client.close();
    } finally {
      await a.client.close();
      await other.client.close();
    }
  }, 60_000);
});

describe('stdio aggregation of two task servers', () => {
  it('tasks/list is merged with pagination, ids are unique per server and route back; a bad cursor is -32602', async () => {
    const cfg = { mcpServers: { one: { ...taskServer.stdio }, two: { ...taskServer.stdio } } };
    const ep = await stdioAggregation(cfg);
    try {
      const c = ep.client;
      const one = (await createTask(c, 'one__count-task', 1)).task.taskId;
      const two = (await createTask(c, 'two__count-task', 2)).task.taskId;
      expect(one).toMatch(/^one__/);
      expect(two).toMatch(/^two__/);
      const first = await c.experimental.tasks.listTasks();
      expect(first.tasks.map((t) => t.taskId)).toEqual([one]);
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await c.experimental.tasks.listTasks(first.nextCursor);
      expect(second.tasks.map((t) => t.taskId)).toEqual([two]);
      expect(second.nextCursor).toBeUndefined();
      expect(JSON.stringify(await c.experimental.tasks.getTaskResult(two, CallToolResultSchema))).toContain(
        'counted to 2',
      );
      expect(JSON.stringify(await c.experimental.tasks.getTaskResult(one, CallToolResultSchema))).toContain(
        'counted to 1',
      );
      expect(await codeOf(c.experimental.tasks.listTasks('not-a-cursor'))).toBe(-32602);
      expect(await codeOf(c.experimental.tasks.getTask(one.replace(/^one__/, 'two__')))).toBe(-32602);
    } finally {
      await ep.close();
    }
  }, 60_000);
});
