// Sessions on the real bridge: many sessions sharing one server process, lists from the
// cache while the server is busy, the aggregated route, legacy SSE, progress, sampling
// and its routing between sessions, DELETE.
import { existsSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanupBridges,
  everythingEntry,
  fixture,
  initializeBody,
  MCP_POST_HEADERS,
  memoryEntry,
  nodeEntry,
  startBridge,
  tempDir,
  waitFor,
  type BridgeProcess,
} from '../../helpers/bridgeProcess.js';

afterEach(cleanupBridges);

function text(result: unknown): string {
  return ((result as { content: { type: string; text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');
}

/** Answers every sampling request with `answer`, counting them. */
function answerSampling(client: Client, answer: string): { count: number } {
  const seen = { count: 0 };
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    seen.count++;
    return { role: 'assistant', content: { type: 'text', text: answer }, model: 'test-model', stopReason: 'endTurn' };
  });
  return seen;
}

describe('bridge sessions', () => {
  it('20 concurrent sessions on one server share its one process', async () => {
    const b = await startBridge({ config: { mcpServers: { memory: memoryEntry(tempDir()) } } });
    const pid = (await b.server('memory')).pid!;
    const sessions = await Promise.all(
      Array.from({ length: 20 }, (_, i) => b.client('/mcp/memory', { name: `agent-${i}` })),
    );
    // One write per session, in turn (server-memory's own file writes do not survive
    // concurrent calls), then every session reads at once and sees all 20: one process.
    for (const [i, { client }] of sessions.entries()) {
      await client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: `entity-${i}`, entityType: 'test', observations: [`made by session ${i}`] }] },
      });
    }
    const graphs = await Promise.all(
      sessions.map(({ client }) => client.callTool({ name: 'read_graph', arguments: {} })),
    );
    const expected = Array.from({ length: 20 }, (_, i) => `entity-${i}`).sort();
    for (const g of graphs)
      expect((JSON.parse(text(g)) as { entities: { name: string }[] }).entities.map((e) => e.name).sort()).toEqual(
        expected,
      );
    const status = await b.server('memory');
    expect(status).toMatchObject({ state: 'ready', pid, sessions: 20, restarts: 0 });

    // DELETE ends a session and frees its slot.
    await Promise.all(
      sessions.slice(0, 5).map(({ transport }) => (transport as StreamableHTTPClientTransport).terminateSession()),
    );
    await b.waitServer('memory', (s) => s.sessions === 15, 5000, '15 sessions after 5 DELETEs');
    expect((await b.server('memory')).pid).toBe(pid);
  });

  it('answers tools/list from its cache while the server is blocked on a call in flight', async () => {
    const gate = join(tempDir(), 'gate');
    const b = await startBridge({ config: { mcpServers: { slow: nodeEntry(fixture('slowStartServer.mjs')) } } });
    const { client: busy } = await b.client('/mcp/slow');
    let finished = false;
    const call = busy.callTool({ name: 'block', arguments: { gate } }).finally(() => (finished = true));
    await waitFor(() => existsSync(`${gate}.entered`), 10_000, 'the server to block');

    // A new session is initialised and listed while the server cannot answer anything.
    const { client: other } = await b.client('/mcp/slow');
    const tools = (await other.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(['block', 'echo', 'pid', 'sample']);
    expect((await busy.listTools()).tools).toHaveLength(4);
    expect(finished).toBe(false);
    writeFileSync(gate, '');
    expect(text(await call)).toBe('unblocked');
  });

  it('serves every server on /mcp under <id>__<tool> names and routes calls by name', async () => {
    const b = await startBridge({
      config: { mcpServers: { everything: everythingEntry(), memory: memoryEntry(tempDir()) } },
    });
    const { client } = await b.client('/mcp');
    const names = (await client.listTools()).tools.map((t) => t.name);
    const status = await b.status();
    const expected = status.servers.flatMap((s) => s.tools.map((t) => `${s.id}__${t.name}`));
    expect(names.sort()).toEqual(expected.sort());
    expect(names).toContain('everything__echo');
    expect(names).toContain('memory__read_graph');
    expect(
      text(await client.callTool({ name: 'everything__echo', arguments: { message: 'through the hub' } })),
    ).toContain('through the hub');
    expect(JSON.parse(text(await client.callTool({ name: 'memory__read_graph', arguments: {} })))).toEqual({
      entities: [],
      relations: [],
    });
    const unknown = await client.callTool({ name: 'memory__nope', arguments: {} }).catch((e: Error) => e);
    expect(String(unknown)).toMatch(/Unknown tool/);
    // An aggregated session counts for every server it reaches.
    expect((await b.status()).servers.map((s) => s.sessions)).toEqual([1, 1]);
  });

  it('serves the same over HTTP from stdio aggregation mode with --transport http', async () => {
    const b = await startBridge({
      mode: 'aggregate-http',
      config: { mcpServers: { s: nodeEntry(fixture('slowStartServer.mjs')) } },
    });
    expect(b.ready!.servers).toEqual([{ id: 's', state: 'ready', tools: 4 }]);
    const { client } = await b.client('/mcp');
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      's__block',
      's__echo',
      's__pid',
      's__sample',
    ]);
    expect(text(await client.callTool({ name: 's__echo', arguments: { text: 'over http' } }))).toBe('over http');
  });

  it('serves the legacy SSE transport to the SDK SSE client', async () => {
    const b = await startBridge({ config: { mcpServers: { memory: memoryEntry(tempDir()) } } });
    // The stream's head and its endpoint event, read raw.
    const head = await new Promise<{ headers: http.IncomingHttpHeaders; first: string }>((resolve, reject) => {
      const req = http.get(
        { host: '127.0.0.1', port: b.port, path: '/sse/memory', headers: { ...b.auth, Accept: 'text/event-stream' } },
        (res) => {
          res.setEncoding('utf8');
          res.once('data', (d: string) => {
            resolve({ headers: res.headers, first: d });
            req.destroy();
          });
        },
      );
      req.on('error', reject);
    });
    expect(head.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(head.headers['cache-control']).toMatch(/no-cache/);
    expect(head.headers['x-accel-buffering']).toBe('no');
    expect(head.first).toMatch(/^event: endpoint\ndata: \/messages\/memory\?sessionId=[\w-]+/);

    const { client } = await b.client('/sse/memory', { sse: true });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('create_entities');
    await client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'via-sse', entityType: 't', observations: [] }] },
    });
    expect(text(await client.callTool({ name: 'read_graph', arguments: {} }))).toContain('via-sse');
    await b.waitServer('memory', (s) => s.sessions === 1, 5000, 'one session');
    await client.close();
    await b.waitServer('memory', (s) => s.sessions === 0, 5000, 'the SSE session to end with its stream');
  });

  it('passes progress notifications and sampling through /mcp/<id> with server-everything', async () => {
    const b = await startBridge({
      config: { mcpServers: { everything: { ...everythingEntry(), clientCapabilities: { sampling: true } } } },
    });
    const { client } = await b.client('/mcp/everything', { capabilities: { sampling: {} } });
    const sampled = answerSampling(client, 'a sampled answer');
    const progress: Progress[] = [];
    const done = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 4 } },
      undefined,
      {
        onprogress: (p) => progress.push(p),
      },
    );
    expect(text(done)).toContain('Long running operation completed');
    expect(progress.map((p) => [p.progress, p.total])).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 4],
    ]);
    const result = await client.callTool({
      name: 'trigger-sampling-request',
      arguments: { prompt: 'hello', maxTokens: 5 },
    });
    expect(text(result)).toContain('a sampled answer');
    expect(sampled.count).toBe(1);
  });

  it('closes a session idle past --idle-timeout, and one ended with DELETE; a connected client with its stream open stays', async () => {
    const b = await startBridge({
      config: { mcpServers: { s: nodeEntry(fixture('slowStartServer.mjs')) } },
      args: ['--idle-timeout', '1500'],
    });
    const open = async () => {
      const res = await b.fetch('/mcp/s', { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });
      expect(res.status).toBe(200);
      await res.text();
      return res.headers.get('mcp-session-id')!;
    };
    const post = (id: string, body: unknown) =>
      b.fetch('/mcp/s', {
        method: 'POST',
        headers: { ...MCP_POST_HEADERS, 'Mcp-Session-Id': id, 'MCP-Protocol-Version': '2025-06-18' },
        body: JSON.stringify(body),
      });
    const { client } = await b.client('/mcp/s');
    const deleted = await open();
    const del = await b.fetch('/mcp/s', {
      method: 'DELETE',
      headers: { 'Mcp-Session-Id': deleted, 'MCP-Protocol-Version': '2025-06-18' },
    });
    expect(del.status).toBe(200);
    expect((await post(deleted, { jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(404);

    // A session with no request and no stream open is closed once idle (the SDK client
    // keeps its GET stream open, so it is never idle).
    const idle = await open();
    await b.waitServer('s', (x) => x.sessions === 1, 15_000, 'the idle session closed');
    expect((await post(idle, { jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(404);
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe('still here');
  });

  it('sends a sampling request to the session whose call is in flight, not the most recently active one', async () => {
    const gate = join(tempDir(), 'gate');
    const b: BridgeProcess = await startBridge({
      config: { mcpServers: { slow: nodeEntry(fixture('slowStartServer.mjs')) } },
    });
    const a = await b.client('/mcp/slow', { capabilities: { sampling: {} }, name: 'A' });
    const other = await b.client('/mcp/slow', { capabilities: { sampling: {} }, name: 'B' });
    const toA = answerSampling(a.client, 'answered by A');
    const toB = answerSampling(other.client, 'answered by B');
    const call = a.client.callTool({ name: 'sample', arguments: { gate } });
    // B becomes the most recently active session while A's call waits at the gate.
    await waitFor(() => existsSync(`${gate}.entered`), 10_000, "A's call to reach the server");
    await other.client.ping();
    await other.client.listTools();
    writeFileSync(gate, '');
    expect(text(await call)).toBe('answered by A');
    expect(toA.count).toBe(1);
    expect(toB.count).toBe(0);
  });
});
