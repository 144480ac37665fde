// server-everything's 2025-11-25 features through every path, as direct, for a client that
// declares elicitation {form, url}, sampling, roots and tasks: the same tool list (its
// trigger-url-elicitation, trigger-sampling-request-async and trigger-elicitation-request-async
// included), task-augmented sampling and elicitation run by the client as tasks and polled by
// the server (client-side tasks), a task-required tool with an input-required elicitation
// delivered through tasks/result, tasks/list, and URL elicitation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ensureBuilt } from '../../../helpers/proxyCli.js';
import { cleanupPaths, everythingServer, paths, type Endpoint, directTranscript } from '../../../helpers/taskPaths.js';

const NEW_TOOLS = ['trigger-url-elicitation', 'trigger-sampling-request-async', 'trigger-elicitation-request-async'];

async function transcript(ep: Endpoint): Promise<Record<string, unknown>> {
  const { client, prefix, seen } = ep;
  const name = (n: string) => prefix + n;
  const out: Record<string, unknown> = {};
  out.tasksCapability = client.getServerCapabilities()?.tasks;
  out.tools = (await client.listTools()).tools
    .map((t) => ({ name: t.name.slice(prefix.length), execution: t.execution }))
    .sort((a, b) => a.name.localeCompare(b.name));
  out.sampling = await client.callTool({
    name: name('trigger-sampling-request-async'),
    arguments: { prompt: 'hello', maxTokens: 5 },
  });
  out.elicitation = await client.callTool({ name: name('trigger-elicitation-request-async'), arguments: {} });
  out.url = await client.callTool({
    name: name('trigger-url-elicitation'),
    arguments: { url: 'https://example.com/x', elicitationId: 'fixed-id' },
  });
  const created = await client.request(
    {
      method: 'tools/call',
      params: {
        name: name('simulate-research-query'),
        arguments: { topic: 'python', ambiguous: true },
        task: { ttl: 60_000 },
      },
    },
    CreateTaskResultSchema,
  );
  out.created = created.task.status;
  out.listed = (await client.experimental.tasks.listTasks()).tasks.some((t) => t.taskId === created.task.taskId);
  out.research = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
  out.researchStatus = (await client.experimental.tasks.getTask(created.task.taskId)).status;
  out.samplingRequests = seen.samplings.map((s) => ({ task: s.task !== undefined, messages: s.messages }));
  out.elicitationRequests = seen.elicitations.map((e) => ({
    mode: e.mode ?? 'form',
    task: e.task !== undefined,
    related: e._meta !== undefined,
  }));
  // Task ids are random: same shape, not same value.
  return JSON.parse(
    JSON.stringify(out).replace(/(e__)?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}/g, 'ID'),
  ) as Record<string, unknown>;
}

let expected: Record<string, unknown>;

beforeAll(async () => {
  ensureBuilt();
  expected = await directTranscript(everythingServer, transcript);
}, 60_000);

afterAll(() => cleanupPaths(), 30_000);

describe('server-everything 2025-11-25 through every path', () => {
  it('direct: the features are there (so the comparison means something)', () => {
    const names = (expected.tools as { name: string }[]).map((t) => t.name);
    for (const t of [...NEW_TOOLS, 'simulate-research-query']) expect(names).toContain(t);
    expect(expected.tasksCapability).toMatchObject({ requests: { tools: { call: {} } } });
    expect(JSON.stringify(expected.sampling)).toContain('sampled by the test');
    expect(expected.samplingRequests).toContainEqual(expect.objectContaining({ task: true }));
    expect(expected.elicitationRequests).toContainEqual({ mode: 'form', task: true, related: false });
    expect(expected.elicitationRequests).toContainEqual({ mode: 'url', task: false, related: false });
    expect(expected.elicitationRequests).toContainEqual({ mode: 'form', task: false, related: true });
    expect(expected.listed).toBe(true);
    expect(expected.researchStatus).toBe('completed');
  });

  it.each(paths(everythingServer).slice(1))(
    '%s',
    async (_name, connect) => {
      const ep = await connect();
      try {
        const got = await transcript(ep);
        expect(got).toEqual(expected);
      } finally {
        await ep.close();
      }
    },
    60_000,
  );
});
