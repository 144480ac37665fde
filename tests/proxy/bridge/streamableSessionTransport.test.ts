// The bridge's own streamable HTTP session transport, over real HTTP on 127.0.0.1 port 0
// with real SDK McpServers behind it (tests/helpers/httpBridgeHarness.ts): JSON answers for
// plain requests, SSE only when something related goes first, batches, 202, the GET
// stream, 409, DELETE and the header checks.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  INITIALIZE,
  MCP_POST_HEADERS,
  rawRequest,
  waitFor,
  type Harness,
  type RawResponse,
  bridgePerTest,
} from '../../helpers/httpBridgeHarness.js';

const { cleanups, bridge } = bridgePerTest();

function post(
  h: Harness,
  body: unknown,
  headers: Record<string, string> = {},
  path = '/mcp/alpha',
): Promise<RawResponse> {
  return rawRequest(h.port, {
    method: 'POST',
    path,
    headers: { ...h.auth, ...MCP_POST_HEADERS, Host: `127.0.0.1:${h.port}`, ...headers },
    body: JSON.stringify(body),
  });
}

/** Initializes a session the raw way and returns the headers its later requests carry. */
async function session(h: Harness): Promise<Record<string, string>> {
  const init = await post(h, INITIALIZE);
  expect(init.status).toBe(200);
  expect(init.headers['content-type']).toContain('application/json');
  expect(JSON.parse(init.body).result.protocolVersion).toBe('2025-06-18');
  const id = init.headers['mcp-session-id'] as string;
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
  const initialized = await post(h, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  expect(initialized.status).toBe(202);
  expect(initialized.body).toBe('');
  return headers;
}

function call(id: number, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
  };
}

/** The `data:` payloads of an SSE body, parsed. */
function events(body: string): Array<Record<string, any>> {
  return body
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => {
      expect(block).toContain('event: message');
      return JSON.parse(
        block
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6),
      );
    });
}

/** Opens a GET stream; resolves once its headers arrived, with the text received so far. */
function openGet(
  h: Harness,
  headers: Record<string, string>,
): Promise<{ status: number; text: () => string; ended: () => boolean; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: h.port,
        path: '/mcp/alpha',
        headers: { ...h.auth, Accept: 'text/event-stream', ...headers },
        agent: false,
      },
      (res) => {
        let text = '';
        let ended = false;
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => (ended = true));
        res.on('error', () => {});
        resolve({ status: res.statusCode ?? 0, text: () => text, ended: () => ended, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('GET timed out')));
    req.end();
    cleanups.push(() => req.destroy());
  });
}

describe('StreamableSessionTransport over the bridge', () => {
  it('answers a plain tools/call with one application/json body and a Content-Length', async () => {
    const h = await bridge();
    const s = await session(h);
    const res = await post(h, call(2, 'echo', { text: 'hi' }), s);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.headers['mcp-session-id']).toBe(s['mcp-session-id']);
    expect(JSON.parse(res.body)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'alpha:streamable:hi' }] },
    });
  });

  it('switches to an event stream when progress goes out before the answer, and ends it after the answer', async () => {
    const h = await bridge();
    const s = await session(h);
    const res = await post(h, call(3, 'count', { steps: 3 }, { progressToken: 'p1' }), s);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    expect(res.headers['content-length']).toBeUndefined();
    const got = events(res.body);
    expect(got.map((m) => m.params?.progress ?? 'answer')).toEqual([1, 2, 3, 'answer']);
    expect(got[0]).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'p1', total: 3 } });
    expect(got[3]).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'counted 3' }] } });
  });

  it('switches a slow answer to an event stream with keep-alives, so the client hears from it', async () => {
    const h = await bridge({ sseKeepAliveMs: 60 });
    const s = await session(h);
    // 40 steps of 5 ms without a progress token: nothing related, only time passes.
    const res = await post(h, call(4, 'count', { steps: 40 }), s);
    expect(res.headers['content-type']).toContain('text/event-stream');
    expect(res.body).toContain(': keepalive');
    expect(events(res.body)).toEqual([
      { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'counted 40' }] } },
    ]);
  });

  it('answers a batch POST with one JSON array in request order; notifications in it get nothing', async () => {
    const h = await bridge();
    const s = await session(h);
    const batch = [
      call(10, 'count', { steps: 3 }),
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      call(11, 'echo', { text: 'b' }),
    ];
    const res = await post(h, batch, s);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    const answers = JSON.parse(res.body);
    expect(answers.map((a: { id: number }) => a.id)).toEqual([10, 11]);
    expect(answers[0].result.content[0].text).toBe('counted 3');
    expect(answers[1].result.content[0].text).toBe('alpha:streamable:b');
  });

  it('answers 202 at once to a POST of notifications or responses only', async () => {
    const h = await bridge();
    const s = await session(h);
    const res = await post(
      h,
      [
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } },
        { jsonrpc: '2.0', id: 'x', result: {} },
      ],
      s,
    );
    expect(res.status).toBe(202);
    expect(res.body).toBe('');
  });

  it('delivers an unrelated list_changed on the GET stream, and refuses a second GET with 409', async () => {
    const h = await bridge({ sseKeepAliveMs: 0 });
    const s = await session(h);
    const get = await openGet(h, s);
    expect(get.status).toBe(200);
    const second = await openGet(h, s);
    expect(second.status).toBe(409);
    // Registering a tool on the live server makes it send notifications/tools/list_changed.
    h.handler.connected[0].server.registerTool('late', { inputSchema: { x: z.string() } }, async () => ({
      content: [],
    }));
    await waitFor(() => get.text().includes('list_changed'), 5_000, 'list_changed on the GET stream');
    expect(events(get.text())).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
    // Once the first stream is gone a new GET is accepted.
    get.close();
    const third = await waitFor(
      async () => {
        const g = await openGet(h, s);
        return g.status !== 409 && g;
      },
      10_000,
      'the GET slot to be free',
    );
    expect(third.status).toBe(200);
  });

  it('ends the session on DELETE with 200: its server closes and the id then gets 404', async () => {
    const h = await bridge();
    const s = await session(h);
    const get = await openGet(h, s);
    const del = await rawRequest(h.port, { method: 'DELETE', path: '/mcp/alpha', headers: { ...h.auth, ...s } });
    expect(del.status).toBe(200);
    await waitFor(() => h.server.sessionCount === 0, 5_000, 'session removed');
    expect(h.handler.connected[0].closed).toBe(true);
    // The GET stream of the session ended with it.
    await waitFor(() => get.ended(), 5_000, 'GET stream ended');
    const after = await post(h, call(5, 'echo', { text: 'late' }), s);
    expect(after.status).toBe(404);
    expect(JSON.parse(after.body).error.code).toBe(-32001);
  });

  it('checks headers and shape as the SDK does: 400 without a session id, 406, 415, bad version, bad JSON-RPC, second initialize', async () => {
    const h = await bridge();
    const noId = await post(h, call(1, 'echo', { text: 'x' }));
    expect(noId.status).toBe(400);
    expect(JSON.parse(noId.body).error.message).toContain('Mcp-Session-Id');
    const s = await session(h);
    expect((await post(h, call(2, 'echo', { text: 'x' }), { ...s, Accept: 'text/html' })).status).toBe(406);
    expect((await post(h, call(2, 'echo', { text: 'x' }), { ...s, 'Content-Type': 'text/plain' })).status).toBe(415);
    const version = await post(h, call(2, 'echo', { text: 'x' }), { ...s, 'mcp-protocol-version': '1999-01-01' });
    expect(version.status).toBe(400);
    expect(JSON.parse(version.body).error.message).toContain('Unsupported protocol version');
    expect((await post(h, { jsonrpc: '1.0', id: 2, method: 'x' }, s)).status).toBe(400);
    expect((await post(h, [], s)).status).toBe(400);
    expect((await post(h, { ...INITIALIZE, id: 7 }, s)).status).toBe(400);
    const getNoSse = await rawRequest(h.port, {
      path: '/mcp/alpha',
      headers: { ...h.auth, ...s, Accept: 'application/json' },
    });
    expect(getNoSse.status).toBe(406);
    // The session is unharmed by all of that.
    const ok = await post(h, call(3, 'echo', { text: 'ok' }), s);
    expect(JSON.parse(ok.body).result.content[0].text).toBe('alpha:streamable:ok');
    expect(h.server.sessionCount).toBe(1);
  });
});
