// The bridge's stream link (src/proxy/bridge/mcpStream.ts): BridgeHttpServer on 127.0.0.1 port 0
// with real SDK servers behind it, reached by StreamClientTransport and by raw sockets.
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { HttpStatusError } from '../../../src/proxy/upstream/leanHttpClientTransport.js';
import { StreamClientTransport } from '../../../src/proxy/upstream/streamClientTransport.js';
import { waitFor, type Harness, bridgePerTest } from '../../helpers/httpBridgeHarness.js';
import { recordProgress } from '../../helpers/progressRecorder.js';

const { cleanups, bridge } = bridgePerTest();

/** A short session idle time, and a window of several of them: a session that idles out wrongly is gone within it. */
const SHORT_IDLE_MS = 150;
const PAST_IDLE_MS = SHORT_IDLE_MS * 4;

async function linkClient(h: Harness, path: string, headers = h.auth) {
  const transport = new StreamClientTransport(new URL(h.url + path), { headers });
  const client = new Client({ name: 'link-client', version: '1.0.0' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

/** Sends a raw upgrade request and returns everything the server wrote until it closed (or 2 s). */
function rawUpgrade(port: number, lines: string[], after = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(text);
    }, 2_000);
    socket.on('data', (c) => (text += c.toString('utf8')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.on('error', reject);
    socket.write(`${lines.join('\r\n')}\r\n\r\n${after}`);
  });
}

describe('stream link', () => {
  it('carries an MCP session: calls with progress on /mcp/<id>, and one session per connection', async () => {
    const h = await bridge();
    const { client, transport } = await linkClient(h, '/mcp/alpha');
    expect(h.server.sessionsFor('alpha')).toBe(1);
    expect(h.handler.connected.at(-1)!.route).toEqual({ serverId: 'alpha', kind: 'stream' });
    const res = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(res.content).toEqual([{ type: 'text', text: 'alpha:stream:hi' }]);
    const progress = recordProgress(client);
    const counted = await client.callTool({ name: 'count', arguments: { steps: 3 }, _meta: { progressToken: 'p1' } });
    expect(counted.content).toEqual([{ type: 'text', text: 'counted 3' }]);
    expect(await progress.steps('p1', 3)).toEqual([1, 2, 3]);
    // 20 calls in flight on the one connection, each answered with its own result.
    const many = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.callTool({ name: 'echo', arguments: { text: String(i) } })),
    );
    expect(many.map((r) => (r.content as { text: string }[])[0]!.text)).toEqual(
      Array.from({ length: 20 }, (_, i) => `alpha:stream:${i}`),
    );

    const second = await linkClient(h, '/mcp');
    expect(h.server.sessionsFor(undefined)).toBe(1);
    expect((await second.client.callTool({ name: 'echo', arguments: { text: 'x' } })).content).toEqual([
      { type: 'text', text: 'all:stream:x' },
    ]);

    // Closing the client's side ends its session on the bridge.
    await transport.close();
    await waitFor(() => h.server.sessionsFor('alpha') === 0, 3_000, 'the alpha session to end');
    await waitFor(() => h.handler.connected[0]!.closed, 3_000, 'the server side to close');
  });

  it('refuses like the other routes: 401 without the token, 404 for an unknown server, 503 for one not ready', async () => {
    const h = await bridge();
    const refused = async (path: string, headers: Record<string, string>) => {
      const t = new StreamClientTransport(new URL(h.url + path), { headers });
      const err = await t.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      return err as HttpStatusError;
    };
    const noToken = await refused('/mcp/alpha', {});
    expect(noToken).toBeInstanceOf(HttpStatusError);
    expect(noToken.status).toBe(401);
    const wrongToken = await refused('/mcp/alpha', { Authorization: 'Bearer nope' });
    expect(wrongToken.status).toBe(401);
    const unknown = await refused('/mcp/nosuch', h.auth);
    expect([unknown.status, unknown.message]).toEqual([404, expect.stringContaining('unknown server \\"nosuch\\"')]);
    const notReady = await refused('/mcp/beta', h.auth);
    expect(notReady.status).toBe(503);
    expect(notReady.message).toContain('"state":"starting"');
    expect(await refused('/sse/alpha', h.auth)).toMatchObject({ status: 404 });
    expect(h.server.sessionCount).toBe(0);
  });

  it('checks Host and Origin before anything, and refuses other upgrades and methods', async () => {
    const h = await bridge();
    const base = ['Connection: Upgrade', 'Upgrade: mcp-stream', `Authorization: Bearer ${h.token}`];
    const badHost = await rawUpgrade(h.port, ['GET /mcp/alpha HTTP/1.1', 'Host: evil.example', ...base]);
    expect(badHost).toMatch(/^HTTP\/1\.1 403 /);
    const badOrigin = await rawUpgrade(h.port, [
      'GET /mcp/alpha HTTP/1.1',
      `Host: 127.0.0.1:${h.port}`,
      'Origin: http://evil.example',
      ...base,
    ]);
    expect(badOrigin).toMatch(/^HTTP\/1\.1 403 /);
    const websocket = await rawUpgrade(h.port, [
      'GET /mcp/alpha HTTP/1.1',
      `Host: 127.0.0.1:${h.port}`,
      'Connection: Upgrade',
      'Upgrade: websocket',
      `Authorization: Bearer ${h.token}`,
    ]);
    expect(websocket).toMatch(/^HTTP\/1\.1 400 [^]*unsupported upgrade/);
    const post = await rawUpgrade(h.port, [
      'POST /mcp/alpha HTTP/1.1',
      `Host: 127.0.0.1:${h.port}`,
      'Content-Length: 0',
      ...base,
    ]);
    expect(post).toMatch(/^HTTP\/1\.1 405 /);
    expect(h.server.sessionCount).toBe(0);
  });

  it('answers bytes that followed the upgrade request in the same packet, and a bad line with -32700', async () => {
    const h = await bridge();
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    };
    const text = await rawUpgrade(
      h.port,
      [
        'GET /mcp/alpha HTTP/1.1',
        `Host: 127.0.0.1:${h.port}`,
        'Connection: Upgrade',
        'Upgrade: mcp-stream',
        `Authorization: Bearer ${h.token}`,
      ],
      `${JSON.stringify(init)}\nnot json\n`,
    );
    const [head, body] = text.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 101 Switching Protocols/);
    const replies = body!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: unknown; result?: { serverInfo?: unknown }; error?: { code: number } });
    expect(replies.find((r) => r.id === 1)?.result?.serverInfo).toMatchObject({ name: 'test-alpha' });
    expect(replies.find((r) => r.id === null)?.error?.code).toBe(-32700);
  });

  it('carries 5 MiB each way, and answers a message over the cap with -32600 and serves on', async () => {
    const h = await bridge({ maxBodyBytes: 8 * 1024 * 1024 });
    const { client, transport } = await linkClient(h, '/mcp/alpha');
    const big = 'x'.repeat(5 * 1024 * 1024);
    const res = await client.callTool({ name: 'echo', arguments: { text: big } });
    expect((res.content as { text: string }[])[0]!.text).toBe(`alpha:stream:${big}`);
    // Over the bridge's cap: refused by id, and the link stays up.
    const errors: unknown[] = [];
    const onmessage = transport.onmessage!;
    transport.onmessage = (m, extra) => {
      if ((m as { id?: unknown }).id === 'too-big') errors.push(m);
      else onmessage(m, extra);
    };
    await transport.send({
      jsonrpc: '2.0',
      id: 'too-big',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'y'.repeat(9 * 1024 * 1024) } },
    });
    await waitFor(() => errors.length === 1, 5_000, 'the oversize answer');
    expect(errors[0]).toMatchObject({ id: 'too-big', error: { code: -32600 } });
    expect((await client.callTool({ name: 'echo', arguments: { text: 'after' } })).content).toEqual([
      { type: 'text', text: 'alpha:stream:after' },
    ]);
  });

  it('never idles out while the connection is open', async () => {
    const h = await bridge({ sessionIdleMs: SHORT_IDLE_MS });
    const { client } = await linkClient(h, '/mcp/alpha');
    await new Promise((r) => setTimeout(r, PAST_IDLE_MS));
    expect(h.server.sessionsFor('alpha')).toBe(1);
    expect((await client.callTool({ name: 'echo', arguments: { text: 'still' } })).content).toEqual([
      { type: 'text', text: 'alpha:stream:still' },
    ]);
  });

  it('when the bridge closes, the client transport reports the close, and close() is bounded', async () => {
    const h = await bridge();
    const { transport } = await linkClient(h, '/mcp/alpha');
    let closed = 0;
    const prev = transport.onclose;
    transport.onclose = () => {
      closed++;
      prev?.();
    };
    const t0 = Date.now();
    await h.server.close();
    expect(Date.now() - t0).toBeLessThan(3_000);
    await waitFor(() => closed === 1, 3_000, 'the client to see the close');
    await expect(transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' })).rejects.toThrow(/closed/);
  });
});
