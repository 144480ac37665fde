// Tasks (SEP-1686, MCP 2025-11-25) through every path, against our task fixture: the same
// scenario direct and through stdio aggregation, bridge /mcp/<id>, bridge /mcp, the ACP chain
// (stdio proxy -> bridge stream link) and convert gives the same transcript (task ids, names
// and timestamps aside): capabilities, execution.taskSupport, CreateTaskResult, tasks/get,
// tasks/result, tasks/list, tasks/cancel, notifications/tasks/status, an input-required task
// whose elicitation comes through tasks/result, a failed task, errors for unknown ids.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ensureBuilt, waitFor } from '../../../helpers/proxyCli.js';
import { cleanupPaths, paths, taskServer, type Endpoint, directTranscript } from '../../../helpers/taskPaths.js';

const RELATED = 'io.modelcontextprotocol/related-task';

async function errorOf(p: Promise<unknown>): Promise<{ code: number; data?: unknown }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof McpError) return { code: err.code, data: err.data };
    throw err;
  }
  throw new Error('expected an error');
}

/** Runs the scenario on one endpoint; ids become T1, T2... in order of appearance, times go. */
async function transcript(ep: Endpoint): Promise<unknown> {
  const { client, prefix, seen } = ep;
  const name = (n: string) => prefix + n;
  const ids: string[] = [];
  const create = async (tool: string, args: Record<string, unknown>) => {
    const res = await client.request(
      { method: 'tools/call', params: { name: name(tool), arguments: args, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    ids.push(res.task.taskId);
    return res;
  };
  const out: Record<string, unknown> = {};
  out.capabilities = client.getServerCapabilities();
  out.tools = (await client.listTools()).tools.map((t) => ({ ...t, name: t.name.slice(prefix.length) }));

  const counted = await create('count-task', { n: 3 });
  const id = counted.task.taskId;
  out.created = counted;
  out.listed = (await client.experimental.tasks.listTasks()).tasks.filter((t) => t.taskId === id).map((t) => t.taskId);
  out.result = await client.experimental.tasks.getTaskResult(id, CallToolResultSchema);
  out.got = await client.experimental.tasks.getTask(id);
  await waitFor(() => seen.statuses.some((s) => s.taskId === id && s.status === 'completed'), 5000);
  out.statuses = seen.statuses.filter((s) => s.taskId === id).map((s) => s.status);

  const failed = await create('count-task', { n: -1 });
  out.failedResult = await client.experimental.tasks.getTaskResult(failed.task.taskId, CallToolResultSchema);
  out.failedTask = (await client.experimental.tasks.getTask(failed.task.taskId)).status;

  out.plain = await client.callTool({ name: name('echo-maybe'), arguments: { text: 'plain' } });
  const echo = await create('echo-maybe', { text: 'as a task' });
  out.echoTask = await client.experimental.tasks.getTaskResult(echo.task.taskId, CallToolResultSchema);
  out.requiredWithoutTask = await client
    .request({ method: 'tools/call', params: { name: name('count-task'), arguments: { n: 1 } } }, CallToolResultSchema)
    .catch((err: McpError) => err.code);

  const ask = await create('ask-task', { question: 'who are you?' });
  out.askResult = await client.experimental.tasks.getTaskResult(ask.task.taskId, CallToolResultSchema);
  const asked = seen.elicitations.find((e) => e.message === 'who are you?');
  out.askElicitationTask =
    (asked?._meta as Record<string, { taskId: string }> | undefined)?.[RELATED]?.taskId === ask.task.taskId;

  const slow = await create('count-task', { n: 100 });
  out.cancelled = (await client.experimental.tasks.cancelTask(slow.task.taskId)).status;
  out.cancelAgain = (await errorOf(client.experimental.tasks.cancelTask(slow.task.taskId))).code;
  out.unknown = (await errorOf(client.experimental.tasks.getTask('no-such-task'))).code;
  out.ids = ids.length;
  return normalise(out, ids);
}

function normalise(v: unknown, ids: string[]): unknown {
  return JSON.parse(
    JSON.stringify(v, (k, x: unknown) => {
      if (k === 'createdAt' || k === 'lastUpdatedAt') return typeof x === 'string' ? 'time' : x;
      if (typeof x === 'string' && ids.includes(x)) return `T${ids.indexOf(x) + 1}`;
      return x;
    }),
  );
}

let expected: unknown;

beforeAll(async () => {
  ensureBuilt();
  expected = await directTranscript(taskServer, transcript);
}, 60_000);

afterAll(() => cleanupPaths(), 30_000);

describe('tasks through every path: the same transcript as direct', () => {
  it('direct: the fixture does what the scenario expects (so the comparison means something)', () => {
    const e = expected as Record<string, unknown>;
    expect(e.capabilities).toMatchObject({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });
    expect(e.tools).toContainEqual(
      expect.objectContaining({ name: 'count-task', execution: { taskSupport: 'required' } }),
    );
    expect(e.tools).toContainEqual(
      expect.objectContaining({ name: 'echo-maybe', execution: { taskSupport: 'optional' } }),
    );
    expect(e.created).toMatchObject({ task: { taskId: 'T1', status: 'working' } });
    expect(e.listed).toEqual(['T1']);
    expect(JSON.stringify(e.result)).toContain('counted to 3');
    expect(e.got).toMatchObject({ taskId: 'T1', status: 'completed' });
    expect(e.statuses).toContain('completed');
    expect(e.failedTask).toBe('failed');
    expect(JSON.stringify(e.askResult)).toContain('answer: Ada');
    expect(e.askElicitationTask).toBe(true);
    expect(e.cancelled).toBe('cancelled');
    expect(e.cancelAgain).toBe(-32602);
    expect(e.unknown).toBe(-32602);
  });

  it.each(paths(taskServer).slice(1))(
    '%s',
    async (_name, connect) => {
      const ep = await connect();
      try {
        expect(await transcript(ep)).toEqual(expected);
      } finally {
        await ep.close();
      }
    },
    60_000,
  );
});
