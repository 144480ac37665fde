// URL-mode elicitation (MCP 2025-11-25) through every path, as direct: `elicitation/create`
// with mode "url" reaches a client that declared elicitation.url, its
// notifications/elicitation/complete comes back to that client, and the -32042
// URL-elicitation-required error passes unchanged, its completion routed to the session that
// got the error. A client that declared only form elicitation never gets the URL mode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ensureBuilt, waitFor } from '../../helpers/proxyCli.js';
import {
  cleanupPaths,
  fullClient,
  paths,
  taskServer,
  type Endpoint,
  directTranscript,
} from '../../helpers/taskPaths.js';
import { startBridge } from '../../helpers/bridgeProcess.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

async function transcript(ep: Endpoint): Promise<unknown> {
  const { client, prefix, seen } = ep;
  const ok = await client.callTool({ name: `${prefix}url-login`, arguments: {} });
  await waitFor(() => seen.completions.includes('login-1'), 5000);
  let error: { code: number; message: string; data: unknown } | undefined;
  try {
    await client.callTool({ name: `${prefix}url-login`, arguments: { errorPath: true } });
  } catch (err) {
    if (!(err instanceof McpError)) throw err;
    error = { code: err.code, message: err.message, data: err.data };
  }
  await waitFor(() => seen.completions.includes('prereq-2'), 5000);
  return { ok, error, elicitations: seen.elicitations, completions: seen.completions };
}

let expected: unknown;

beforeAll(async () => {
  ensureBuilt();
  expected = await directTranscript(taskServer, transcript);
}, 60_000);

afterAll(() => cleanupPaths(), 30_000);

describe('URL elicitation through every path', () => {
  it('direct: the URL elicitation, its completion, and -32042 with its data', () => {
    expect(expected).toMatchObject({
      ok: { content: [{ text: 'login login-1: accept' }] },
      error: { code: -32042, data: { elicitations: [{ mode: 'url', elicitationId: 'prereq-2' }] } },
      elicitations: [{ mode: 'url', elicitationId: 'login-1', url: 'https://example.com/login' }],
      completions: ['login-1', 'prereq-2'],
    });
  });

  it.each(paths(taskServer).slice(1))(
    '%s: as direct',
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

  it('bridge: the completion goes only to the session that got the elicitation; a form-only session never gets the URL mode', async () => {
    const b = await startBridge({
      config: { mcpServers: { t: { ...taskServer.stdio, clientCapabilities: { elicitation: true } } } },
    });
    const connect = async (capabilities?: Record<string, unknown>) => {
      const c = fullClient(capabilities);
      await c.client.connect(
        new StreamableHTTPClientTransport(new URL(`${b.url}/mcp/t`), { requestInit: { headers: b.auth } }),
      );
      return c;
    };
    const a = await connect();
    const other = await connect();
    const formOnly = await connect({ elicitation: {} });
    try {
      await a.client.callTool({ name: 'url-login', arguments: {} });
      await waitFor(() => a.seen.completions.length === 1, 5000);
      await expect(a.client.callTool({ name: 'url-login', arguments: { errorPath: true } })).rejects.toMatchObject({
        code: -32042,
      });
      await waitFor(() => a.seen.completions.length === 2, 5000);
      expect(other.seen.completions).toEqual([]);
      expect(other.seen.elicitations).toEqual([]);
      // A stdio server's request carries no relation to the call: it goes to a session that
      // declared URL mode (here `a`, the most recently active), never to the form-only one.
      await formOnly.client.callTool({ name: 'url-login', arguments: {} });
      expect(formOnly.seen.elicitations).toEqual([]);
      await waitFor(() => a.seen.completions.length === 3, 5000);
      expect(a.seen.elicitations).toHaveLength(2);
      expect(other.seen.elicitations).toEqual([]);
      expect(formOnly.seen.completions).toEqual([]);
    } finally {
      for (const c of [a, other, formOnly]) await c.client.close();
    }
  }, 60_000);
});
