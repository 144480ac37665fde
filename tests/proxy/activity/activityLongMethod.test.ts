// A request's method is the client's text: one of megabytes, with any characters, is recorded
// cut (as a tool name is), so one request neither holds megabytes in the ring nor pushes every
// earlier record out of it. On the real bridge, over /mcp, with an SDK client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ActivityPage } from '../../../src/shared/activity.js';
import { cleanupBridges, startBridge, waitFor } from '../../helpers/bridgeProcess.js';
import { fixtureEntry } from '../../helpers/proxyCli.js';

let client: Client | undefined;

afterEach(async () => {
  await client?.close().catch(() => undefined);
  client = undefined;
  await cleanupBridges();
});

describe('a request with a huge method', () => {
  it('is recorded with its method cut, and the records before it stay', async () => {
    const b = await startBridge({ config: { mcpServers: { alpha: fixtureEntry('alpha') } } });
    client = new Client({ name: 'long-method', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${b.url}/mcp`), { requestInit: { headers: b.auth } }),
    );
    await client.listTools();
    const method = `x/\u0000\u001b[31m${'m'.repeat(5 * 1024 * 1024)}`;
    await expect(client.request({ method }, z.object({}))).rejects.toThrow(/not found/i);
    const page = await waitFor(
      async () => {
        const res = await b.fetch('/activity?client=long-method');
        const p = (await res.json()) as ActivityPage;
        return p.records.some((r) => r.method.startsWith('x/')) ? p : undefined;
      },
      20_000,
      'the long request recorded',
    );
    const long = page.records.find((r) => r.method.startsWith('x/'))!;
    expect(page.dropped).toBe(0);
    expect(long.method.length).toBeLessThanOrEqual(300);
    expect(long.error?.message.length ?? 0).toBeLessThanOrEqual(500);
    expect(page.records.some((r) => r.method === 'tools/list')).toBe(true);
    expect(page.dropped).toBe(0);
  }, 60_000);
});
