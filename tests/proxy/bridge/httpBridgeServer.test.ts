// BridgeHttpServer over real HTTP on 127.0.0.1 port 0, with real SDK clients and servers.
import http from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { STATIC_CSP } from '../../../src/proxy/bridge/staticFiles.js';
import { ROOT } from '../../helpers/paths.js';
import { recordProgress } from '../../helpers/progressRecorder.js';
import {
  INITIALIZE,
  MCP_POST_HEADERS,
  rawRequest,
  rawStream,
  startBridge,
  waitFor,
  type Harness,
  bridgePerTest,
} from '../../helpers/httpBridgeHarness.js';

const { cleanups, bridge } = bridgePerTest();

/** A short session idle time, and a window of several of them: a session that idles out wrongly is gone within it. */
const SHORT_IDLE_MS = 150;
const PAST_IDLE_MS = SHORT_IDLE_MS * 4;

async function streamableClient(h: Harness, path: string) {
  const transport = new StreamableHTTPClientTransport(new URL(h.url + path), { requestInit: { headers: h.auth } });
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

async function sseClient(h: Harness, path: string) {
  const transport = new SSEClientTransport(new URL(h.url + path), { requestInit: { headers: h.auth } });
  const client = new Client({ name: 'test-sse-client', version: '1.0.0' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

/** Opens a GET SSE stream with a raw request; resolves once the first bytes arrived. */
function openRawSse(h: Harness, path: string): Promise<{ ended: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: h.port, path, headers: { ...h.auth, Accept: 'text/event-stream' }, agent: false },
      (res) => {
        const ended = new Promise<string>((done) => {
          res.on('end', () => done('ended'));
          res.on('error', () => done('ended'));
          res.on('close', () => done('ended'));
        });
        res.once('data', () => resolve({ ended }));
        res.resume();
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function text(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] ?? { text: '' }).text;
}

async function postInitialize(h: Harness, path = '/mcp/alpha'): Promise<string> {
  const res = await fetch(h.url + path, {
    method: 'POST',
    headers: { ...h.auth, ...MCP_POST_HEADERS },
    body: JSON.stringify(INITIALIZE),
  });
  expect(res.status).toBe(200);
  await res.text();
  const id = res.headers.get('mcp-session-id');
  expect(id).toBeTruthy();
  return id!;
}

describe('BridgeHttpServer: streamable HTTP', () => {
  it('serves a real MCP session on /mcp/<id>, with progress notifications, and DELETE frees it', async () => {
    const h = await bridge();
    const { client, transport } = await streamableClient(h, '/mcp/alpha');
    expect(h.server.sessionCount).toBe(1);
    expect(h.server.sessionsFor('alpha')).toBe(1);
    expect(h.server.sessionsFor()).toBe(0);
    expect(h.handler.connected[0].route).toEqual({ serverId: 'alpha', kind: 'streamable' });

    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(['count', 'echo']);
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('alpha:streamable:hi');

    // Progress tied to a request must reach the caller (the reason replies are SSE, not JSON).
    const progress = recordProgress(client);
    const counted = await client.callTool({ name: 'count', arguments: { steps: 4 }, _meta: { progressToken: 'p1' } });
    expect(text(counted)).toBe('counted 4');
    expect(await progress.steps('p1', 4)).toEqual([1, 2, 3, 4]);

    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    await waitFor(() => h.server.sessionCount === 0, 5_000, 'session removed after DELETE');
    expect(h.handler.connected[0].closed).toBe(true);
    const after = await fetch(h.url + '/mcp/alpha', {
      method: 'POST',
      headers: { ...h.auth, ...MCP_POST_HEADERS, 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
    expect(h.logLines.filter((l) => /\[(warn|error)\]/.test(l))).toEqual([]);
  });

  it('serves the aggregated /mcp route with serverId undefined', async () => {
    const h = await bridge();
    const { client } = await streamableClient(h, '/mcp');
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('all:streamable:x');
    expect(h.server.sessionsFor()).toBe(1);
    expect(h.server.sessionsFor('alpha')).toBe(0);
  });

  it('keeps 20 concurrent sessions apart', async () => {
    const h = await bridge();
    const clients = await Promise.all(Array.from({ length: 20 }, () => streamableClient(h, '/mcp/alpha')));
    expect(h.server.sessionCount).toBe(20);
    const answers = await Promise.all(
      clients.map(({ client }, i) => client.callTool({ name: 'echo', arguments: { text: `n${i}` } })),
    );
    expect(answers.map(text)).toEqual(clients.map((_, i) => `alpha:streamable:n${i}`));
    expect(new Set(clients.map(({ transport }) => transport.sessionId)).size).toBe(20);
    await Promise.all(clients.map(({ transport }) => transport.terminateSession()));
    await waitFor(() => h.server.sessionCount === 0, 5_000, 'all sessions removed');
  });

  it('expires an idle session (no open request) and then answers 404 for it', async () => {
    const h = await bridge({ sessionIdleMs: 200 });
    const sessionId = await postInitialize(h);
    expect(h.server.sessionCount).toBe(1);
    await waitFor(() => h.server.sessionCount === 0, 5_000, 'idle expiry');
    expect(h.handler.connected[0].closed).toBe(true);
    const res = await fetch(h.url + '/mcp/alpha', {
      method: 'POST',
      headers: { ...h.auth, ...MCP_POST_HEADERS, 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe(-32001);
  });

  it('does not expire a session while its GET stream is open, and expires it once the client is gone', async () => {
    const h = await bridge({ sessionIdleMs: SHORT_IDLE_MS });
    const { client } = await streamableClient(h, '/mcp/alpha');
    await new Promise((r) => setTimeout(r, PAST_IDLE_MS));
    expect(h.server.sessionCount).toBe(1);
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'still' } }))).toBe('alpha:streamable:still');
    // close() without DELETE: the GET stream ends and the idle clock reclaims the session.
    await client.close();
    await waitFor(() => h.server.sessionCount === 0, 5_000, 'expiry after client vanished');
  });

  it('answers 404 for an unknown session id and 400 for a non-initialize request without one', async () => {
    const h = await bridge();
    const unknown = await fetch(h.url + '/mcp/alpha', {
      method: 'POST',
      headers: { ...h.auth, ...MCP_POST_HEADERS, 'mcp-session-id': 'no-such-session' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe(-32001);
    const noSession = await fetch(h.url + '/mcp/alpha', {
      method: 'POST',
      headers: { ...h.auth, ...MCP_POST_HEADERS },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(noSession.status).toBe(400);
    await noSession.text();
    // A session belongs to its route: the same id on another route is unknown there.
    const sessionId = await postInitialize(h, '/mcp/alpha');
    const elsewhere = await fetch(h.url + '/mcp', {
      method: 'DELETE',
      headers: { ...h.auth, 'mcp-session-id': sessionId },
    });
    expect(elsewhere.status).toBe(404);
    expect(h.server.sessionCount).toBe(1);
  });

  it('answers 404 for unknown routes and 503 with the state for a route that is not ready', async () => {
    const h = await bridge();
    const unknownServer = await fetch(h.url + '/mcp/nope', {
      method: 'POST',
      headers: { ...h.auth, ...MCP_POST_HEADERS },
      body: JSON.stringify(INITIALIZE),
    });
    expect(unknownServer.status).toBe(404);
    await unknownServer.text();
    const unknownPath = await fetch(h.url + '/nothing/here', { headers: h.auth });
    expect(unknownPath.status).toBe(404);
    await unknownPath.text();

    const notReady = await fetch(h.url + '/mcp/beta', {
      method: 'POST',
      headers: { ...h.auth, ...MCP_POST_HEADERS },
      body: JSON.stringify(INITIALIZE),
    });
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({ state: 'starting', serverId: 'beta' });
    const sseNotReady = await fetch(h.url + '/sse/beta', { headers: { ...h.auth, Accept: 'text/event-stream' } });
    expect(sseNotReady.status).toBe(503);
    expect(await sseNotReady.json()).toMatchObject({ state: 'starting' });
    expect(h.handler.connected).toHaveLength(0);
    expect(h.server.sessionCount).toBe(0);
  });

  it('answers 413 beyond the body cap (declared or streamed) and 400 with a parse error for bad JSON', async () => {
    const h = await bridge({ maxBodyBytes: 1024 });
    const big = Buffer.alloc(5000, 'a');
    const declared = await rawRequest(h.port, {
      method: 'POST',
      path: '/mcp/alpha',
      headers: { ...h.auth, ...MCP_POST_HEADERS, Host: `127.0.0.1:${h.port}`, 'Content-Length': String(big.length) },
      body: big,
    });
    expect(declared.status).toBe(413);
    // No Content-Length: chunked, noticed while reading.
    const chunked = await rawRequest(h.port, {
      method: 'POST',
      path: '/messages/alpha?sessionId=x',
      headers: { ...h.auth, 'Content-Type': 'application/json', Host: `127.0.0.1:${h.port}` },
      chunks: [big.subarray(0, 800), big.subarray(800, 1600), big.subarray(1600)],
    });
    expect(chunked.status).toBe(413);

    const bad = await fetch(h.url + '/mcp/alpha', {
      method: 'POST',
      headers: { ...h.auth, ...MCP_POST_HEADERS },
      body: '{"jsonrpc": "2.0", "id": 1,',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(h.server.sessionCount).toBe(0);
  });

  it('refuses the session with 500 when the handler throws', async () => {
    const h = await bridge();
    h.handler.failConnect = true;
    const res = await fetch(h.url + '/mcp/alpha', {
      method: 'POST',
      headers: { ...h.auth, ...MCP_POST_HEADERS },
      body: JSON.stringify(INITIALIZE),
    });
    expect(res.status).toBe(500);
    await res.text();
    expect(h.server.sessionCount).toBe(0);
  });
});

describe('BridgeHttpServer: legacy SSE', () => {
  it('serves a real MCP session over /sse/<id> + /messages/<id>, with progress', async () => {
    const h = await bridge();
    const { client } = await sseClient(h, '/sse/alpha');
    expect(h.server.sessionsFor('alpha')).toBe(1);
    expect(h.handler.connected[0].route).toEqual({ serverId: 'alpha', kind: 'sse' });
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'hey' } }))).toBe('alpha:sse:hey');
    const progress = recordProgress(client);
    await client.callTool({ name: 'count', arguments: { steps: 3 }, _meta: { progressToken: 'p1' } });
    expect(await progress.steps('p1', 3)).toEqual([1, 2, 3]);
    await client.close();
    await waitFor(() => h.server.sessionCount === 0, 5_000, 'SSE session removed when its stream closed');
    expect(h.handler.connected[0].closed).toBe(true);
    expect(h.logLines.filter((l) => /\[(warn|error)\]/.test(l))).toEqual([]);
  });

  it('serves the aggregated /sse route and 404s a POST for an unknown session', async () => {
    const h = await bridge();
    const { client } = await sseClient(h, '/sse');
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('all:sse:a');
    const res = await fetch(h.url + '/messages?sessionId=nope', {
      method: 'POST',
      headers: { ...h.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(404);
    await res.text();
  });

  it('sends the endpoint event, no-cache and X-Accel-Buffering headers, and keep-alive comments', async () => {
    const h = await bridge({ sseKeepAliveMs: 50 });
    const got = await rawStream(h.port, '/sse/alpha', { ...h.auth, Accept: 'text/event-stream' }, (t) =>
      t.includes(': keepalive'),
    );
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toContain('text/event-stream');
    expect(got.headers['cache-control']).toContain('no-cache');
    expect(got.headers['x-accel-buffering']).toBe('no');
    expect(got.text).toMatch(/event: endpoint\ndata: \/messages\/alpha\?sessionId=[0-9a-f-]{36}\n\n/);
    await waitFor(() => h.server.sessionCount === 0, 5_000, 'session gone with its stream');
  });
});

describe('BridgeHttpServer: health, status, events, restart', () => {
  it('answers /health and /status', async () => {
    const h = await bridge();
    const health = await fetch(h.url + '/health', { headers: h.auth });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    h.bus.current = { bridge: { state: 'ready', port: h.port }, servers: [{ id: 'alpha' }] };
    const status = await fetch(h.url + '/status', { headers: h.auth });
    expect(status.headers.get('content-type')).toContain('application/json');
    expect(await status.json()).toEqual(h.bus.current);
  });

  it('streams the current status first, then each change, with keep-alives; unsubscribes on disconnect', async () => {
    const h = await bridge({ sseKeepAliveMs: 50 });
    h.bus.current = { bridge: { state: 'starting' }, servers: [] };
    const ac = new AbortController();
    const res = await fetch(h.url + '/events', { headers: h.auth, signal: ac.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    const readUntil = async (pred: (b: string) => boolean) => {
      const deadline = Date.now() + 5_000;
      while (!pred(buf)) {
        if (Date.now() > deadline) throw new Error(`no match in ${JSON.stringify(buf)}`);
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buf += decoder.decode(value, { stream: true });
      }
    };
    await readUntil((b) => b.includes('\n\n'));
    expect(
      buf.startsWith(`event: status\ndata: ${JSON.stringify({ bridge: { state: 'starting' }, servers: [] })}\n\n`),
    ).toBe(true);
    h.bus.publish({ bridge: { state: 'ready' }, servers: [{ id: 'alpha' }] });
    await readUntil((b) => b.includes('"ready"'));
    expect(buf).toContain(
      `event: status\ndata: ${JSON.stringify({ bridge: { state: 'ready' }, servers: [{ id: 'alpha' }] })}\n\n`,
    );
    await readUntil((b) => b.includes(': keepalive\n\n'));
    expect(h.bus.listenerCount).toBe(1);
    ac.abort();
    await waitFor(() => h.bus.listenerCount === 0, 5_000, 'unsubscribe after disconnect');
  });

  it('restarts a server through POST /servers/<id>/restart', async () => {
    const calls: string[] = [];
    const h = await bridge({
      onRestart: async (id) => {
        calls.push(id);
        return id === 'alpha' ? { ok: true } : { ok: false, error: 'cannot restart' };
      },
    });
    const ok = await fetch(h.url + '/servers/alpha/restart', { method: 'POST', headers: h.auth });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true });
    const failed = await fetch(h.url + '/servers/beta/restart', { method: 'POST', headers: h.auth });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ ok: false, error: 'cannot restart' });
    const unknown = await fetch(h.url + '/servers/nope/restart', { method: 'POST', headers: h.auth });
    expect(unknown.status).toBe(404);
    await unknown.text();
    const wrongMethod = await fetch(h.url + '/servers/alpha/restart', { headers: h.auth });
    expect(wrongMethod.status).toBe(405);
    await wrongMethod.text();
    expect(calls).toEqual(['alpha', 'beta']);
  });
});

describe('BridgeHttpServer: static panel', () => {
  it('serves the panel without the token, with the CSP, and never outside its directory', async () => {
    const base = mkdtempSync(join(tmpdir(), 'bridge-static-'));
    cleanups.push(() => rmSync(base, { recursive: true, force: true }));
    const dir = join(base, 'panel');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>panel</title>');
    writeFileSync(join(dir, 'app.js'), 'export {};');
    writeFileSync(join(base, 'secret.txt'), 'secret');
    const h = await bridge({ staticDir: dir });

    const index = await fetch(h.url + '/');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toContain('text/html');
    expect(index.headers.get('content-security-policy')).toBe(STATIC_CSP);
    // default-src covers neither <base> nor where a form may submit: both are closed explicitly.
    const directives = STATIC_CSP.split(';').map((d) => d.trim());
    expect(directives).toEqual(expect.arrayContaining(["base-uri 'none'", "form-action 'none'"]));
    // The page carries the same policy for file:// (Electron), where there is no header.
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]*)"/.exec(
      readFileSync(join(ROOT, 'src/renderer/index.html'), 'utf8'),
    );
    expect(meta?.[1]).toBe(STATIC_CSP);
    expect(await index.text()).toContain('<title>panel</title>');
    const js = await fetch(h.url + '/app.js');
    expect(js.headers.get('content-type')).toContain('text/javascript');
    await js.text();

    for (const path of [
      '/%2e%2e/secret.txt',
      '/..%2fsecret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/assets',
      '/missing.js',
    ]) {
      const res = await rawRequest(h.port, { path, headers: { Host: `127.0.0.1:${h.port}` } });
      expect(res.status, path).toBe(404);
      expect(res.body).not.toContain('secret');
    }
    // The API stays behind the token even with a static directory.
    const status = await fetch(h.url + '/status');
    expect(status.status).toBe(401);
    await status.text();
  });
});

describe('BridgeHttpServer: close()', () => {
  it('returns promptly with open streamable and SSE sessions and /events streams, ending them all', async () => {
    const h = await startBridge({ sseKeepAliveMs: 1_000 });
    const a = await streamableClient(h, '/mcp/alpha');
    const b = await sseClient(h, '/sse/alpha');
    // A raw legacy SSE stream too, to see the server end it (the SDK client reconnects).
    const raw = await openRawSse(h, '/sse');
    const events = await fetch(h.url + '/events', { headers: h.auth });
    const reader = events.body!.getReader();
    await reader.read();
    expect(h.server.sessionCount).toBe(3);

    const closed = h.server.close();
    const outcome = await Promise.race([
      closed.then(() => 'closed'),
      new Promise((r) => setTimeout(() => r('timeout'), 8_000)),
    ]);
    expect(outcome).toBe('closed');
    expect(h.server.sessionCount).toBe(0);
    expect(h.handler.connected.every((c) => c.closed)).toBe(true);
    // The /events stream ended (done, or cut) rather than hanging.
    const end = await Promise.race([
      (async () => {
        for (;;) {
          const r = await reader.read();
          if (r.done) return 'ended';
        }
      })().catch(() => 'ended'),
      new Promise((r) => setTimeout(() => r('hang'), 5_000)),
    ]);
    expect(end).toBe('ended');
    expect(await Promise.race([raw.ended, new Promise((r) => setTimeout(() => r('hang'), 5_000))])).toBe('ended');
    await expect(b.client.callTool({ name: 'echo', arguments: { text: 'late' } })).rejects.toThrow();
    await expect(fetch(h.url + '/health', { headers: h.auth })).rejects.toThrow();
    await a.client.close();
  });
});
