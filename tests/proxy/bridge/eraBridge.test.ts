// The bridge's streamable HTTP routes for 2026-07-28 clients (issue 18 point 1): stateless
// POSTs without a session id, the request metadata headers checked against the body, a 2025
// and a 2026 server behind `/mcp` and `/mcp/<id>`, an SDK v2 Client pinned to 2026-07-28.
import { afterEach, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { cleanupBridges, nodeEntry, startBridge, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { modernEntry } from '../../helpers/modernFixture.js';
import { FIXTURES } from '../../helpers/paths.js';
import { text } from '../../helpers/toolText.js';
import { join } from 'node:path';

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await cleanupBridges();
});

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function bridge(): Promise<BridgeProcess> {
  return startBridge({
    config: {
      mcpServers: { m: modernEntry('m'), old: nodeEntry(join(FIXTURES, 'mcpFixtureServer.mjs'), ['--name', 'old']) },
    },
  });
}

async function modern(b: BridgeProcess, path: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(b.url + path), { requestInit: { headers: b.auth } });
  const client = new Client(
    { name: 'modern-http', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  clients.push(client);
  await client.connect(transport);
  return client;
}

async function post(b: BridgeProcess, path: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(b.url + path, {
    method: 'POST',
    headers: {
      ...b.auth,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    session: res.headers.get('mcp-session-id'),
    body: (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined,
  };
}

describe('bridge: 2026-07-28 clients over stateless streamable HTTP', () => {
  it('serves /mcp (a 2025 and a 2026 server) and /mcp/<id> to an SDK v2 client, with no session', async () => {
    const b = await bridge();
    const all = await modern(b, '/mcp');
    expect(all.getProtocolEra()).toBe('modern');
    expect(all.getDiscoverResult()!.instructions).toContain('## m\nm: echo and add things.');
    const names = (await all.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['m__echo', 'old__echo']));
    expect(text(await all.callTool({ name: 'm__echo', arguments: { text: 'a' } }))).toBe('echo: a');
    expect(text(await all.callTool({ name: 'old__echo', arguments: { text: 'b' } }))).toContain('b');
    const one = await modern(b, '/mcp/m');
    expect((await one.callTool({ name: 'add', arguments: { a: 4, b: 5 } })).structuredContent).toEqual({ sum: 9 });
    expect((await one.readResource({ uri: 'fixture://hello' })).contents[0]).toMatchObject({
      text: 'hello from the 2026 fixture',
    });
    // Stateless: the bridge keeps no session for them.
    for (const s of (await b.status()).servers) expect(s.sessions).toBe(0);
  });

  it('checks the headers against the body (-32020), refuses GET (405) and mints no session id', async () => {
    const b = await bridge();
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'm__echo', arguments: { text: 'x' }, _meta: ENVELOPE },
    };
    const good = await post(b, '/mcp', call, { 'mcp-method': 'tools/call', 'mcp-name': 'm__echo' });
    expect(good.status).toBe(200);
    expect(good.session).toBeNull();
    expect(text(good.body!.result)).toBe('echo: x');
    expect(good.body!.result).toMatchObject({ resultType: 'complete' });
    const encoded = await post(b, '/mcp', call, {
      'mcp-method': 'tools/call',
      'mcp-name': `=?base64?${Buffer.from('m__echo').toString('base64')}?=`,
    });
    expect(encoded.status).toBe(200);
    const mismatches: Record<string, string>[] = [
      { 'mcp-method': 'tools/call', 'mcp-name': 'm__add' },
      { 'mcp-method': 'tools/list', 'mcp-name': 'm__echo' },
      { 'mcp-method': 'tools/call' },
      {},
    ];
    for (const headers of mismatches) {
      const bad = await post(b, '/mcp', call, headers);
      expect(bad.status).toBe(400);
      expect((bad.body!.error as { code: number }).code).toBe(-32020);
    }
    const noEnvelope = await post(
      b,
      '/mcp',
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
      { 'mcp-method': 'tools/list' },
    );
    expect(noEnvelope.status).toBe(400);
    expect((noEnvelope.body!.error as { code: number }).code).toBe(-32602);
    const unknown = await post(
      b,
      '/mcp',
      { jsonrpc: '2.0', id: 3, method: 'nope/nothing', params: { _meta: ENVELOPE } },
      { 'mcp-method': 'nope/nothing' },
    );
    expect(unknown.status).toBe(404);
    const get = await fetch(b.url + '/mcp', {
      headers: { ...b.auth, accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' },
    });
    expect(get.status).toBe(405);
    await get.body?.cancel();
  });
});
