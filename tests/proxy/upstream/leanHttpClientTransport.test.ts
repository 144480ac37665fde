// LeanHttpClientTransport against real servers: the SDK's StreamableHTTPServerTransport (the
// fixture run with --transport http) and the real bridge, optionally through a recording
// relay (a real node:http server in this process) that shows each request's method and
// which client sockets are still open.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { HttpStatusError, LeanHttpClientTransport } from '../../../src/proxy/upstream/leanHttpClientTransport.js';
import { ResilientTransportWrapper } from '../../../src/proxy/upstream/resilientTransport.js';
import { cleanupBridges, startBridge, waitFor, waitNotRunning } from '../../helpers/bridgeProcess.js';
import { fixtureEntry, startHttpFixture } from '../../helpers/proxyCli.js';

type Msg = Record<string, any>;
const cleanups: (() => Promise<void> | void)[] = [];
const pids: number[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await cleanupBridges();
  for (const pid of pids.splice(0)) {
    expect(await waitNotRunning(pid, 5000)).toBe(true);
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  }
});

async function fixtureServer(port?: number) {
  const f = await startHttpFixture('http', { port, name: 'lean' });
  pids.push(f.child.pid!);
  cleanups.push(f.stop);
  return f;
}

/** A client over one transport: collects everything it receives, awaits replies by id. */
class Peer {
  readonly received: Msg[] = [];
  readonly errors: Error[] = [];
  private nextId = 1;
  constructor(readonly t: { send(m: JSONRPCMessage): Promise<void>; onmessage?: unknown; onerror?: unknown }) {
    t.onmessage = (m: Msg) => this.received.push(m);
    t.onerror = (e: Error) => this.errors.push(e);
  }
  async request(method: string, params?: unknown, timeoutMs = 10_000): Promise<Msg> {
    const id = this.nextId++;
    await this.t.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) } as JSONRPCMessage);
    return this.wait((m) => m.id === id && !('method' in m), timeoutMs, `reply to ${method}`);
  }
  wait(pred: (m: Msg) => boolean, timeoutMs: number, what: string): Promise<Msg> {
    return waitFor(() => this.received.find(pred), timeoutMs, what);
  }
  async handshake(lean: LeanHttpClientTransport): Promise<Msg> {
    const init = await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: { sampling: {} },
      clientInfo: { name: 'lean-test', version: '1' },
    });
    lean.setProtocolVersion(init.result.protocolVersion);
    await lean.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
    return init;
  }
}

/** A recording relay in front of `target`: request methods, and the client sockets open now. */
async function relay(target: string, keepAliveTimeoutMs = 5_000) {
  const methods: string[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    methods.push(req.method!);
    const up = http.request(
      {
        host: to.hostname,
        port: to.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: to.host },
      },
      (ures) => {
        res.writeHead(ures.statusCode!, ures.headers);
        res.flushHeaders();
        ures.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())).then(() => undefined));
  cleanups.push(() => server.closeAllConnections());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${to.pathname}`, methods, sockets };
}

/** Runs the MCP exchanges both servers must support. */
async function exercise(peer: Peer, lean: LeanHttpClientTransport, toolPrefix = '') {
  const init = await peer.handshake(lean);
  expect(init.result.serverInfo).toBeDefined();
  expect(lean.sessionId).toMatch(/\S+/);

  const list = await peer.request('tools/list');
  expect(list.result.tools.map((t: Msg) => t.name)).toContain(`${toolPrefix}echo`);

  // Progress notifications and the result arrive on the POST's event-stream reply.
  const slow = await peer.request('tools/call', {
    name: `${toolPrefix}slow`,
    arguments: { ms: 80, steps: 3 },
    _meta: { progressToken: 'p1' },
  });
  expect(slow.result.content[0].text).toBe('slept 80');
  const progress = peer.received.filter(
    (m) => m.method === 'notifications/progress' && m.params.progressToken === 'p1',
  );
  expect(progress.map((m) => m.params.progress)).toEqual([1, 2, 3]);

  // A server->client request (sampling), answered through send().
  const id = 100;
  await lean.send({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: `${toolPrefix}sample`, arguments: { prompt: 'hi' } },
  } as JSONRPCMessage);
  const ask = await peer.wait((m) => m.method === 'sampling/createMessage', 10_000, 'the sampling request');
  expect(ask.params.messages[0].content.text).toBe('hi');
  await lean.send({
    jsonrpc: '2.0',
    id: ask.id,
    result: { role: 'assistant', content: { type: 'text', text: 'sampled-answer' }, model: 'm' },
  } as JSONRPCMessage);
  const sampled = await peer.wait((m) => m.id === id && !('method' in m), 10_000, 'the sample result');
  expect(sampled.result.content[0].text).toBe('sampled: sampled-answer');

  // list_changed is unrelated to any request: only the GET stream can carry it.
  const added = await peer.request('tools/call', { name: `${toolPrefix}add_tool`, arguments: { id: 'later' } });
  expect(added.result.content[0].text).toBe('added later');
  await peer.wait((m) => m.method === 'notifications/tools/list_changed', 10_000, 'list_changed on the GET stream');
  expect(peer.errors).toEqual([]);
}

describe('LeanHttpClientTransport', () => {
  it('speaks to the SDK streamable HTTP server, and close() deletes the session and frees every socket', async () => {
    const f = await fixtureServer();
    const r = await relay(f.url);
    const lean = new LeanHttpClientTransport(new URL(r.url));
    const peer = new Peer(lean);
    let closes = 0;
    lean.onclose = () => closes++;
    await lean.start();
    await exercise(peer, lean);
    expect(r.methods).toContain('GET');
    expect(r.sockets.size).toBeGreaterThan(0);

    await lean.close();
    await lean.close();
    expect(closes).toBe(1);
    expect(r.methods.at(-1)).toBe('DELETE');
    await waitFor(() => r.sockets.size === 0, 5000, 'every client socket to close');
    await expect(lean.send({ jsonrpc: '2.0', id: 9, method: 'ping' } as JSONRPCMessage)).rejects.toThrow(/closed/);
    expect(peer.errors).toEqual([]);
  });

  it('speaks to the real bridge (SSE replies, sampling, list_changed) with its bearer token', async () => {
    const token = 'a-test-token-of-sufficient-length';
    const bridge = await startBridge({ config: { mcpServers: { fx: fixtureEntry('fx') } }, token });
    const url = new URL(`${bridge.ready!.url}/mcp/fx`);
    const unauthorized = new LeanHttpClientTransport(url);
    cleanups.push(() => unauthorized.close());
    await expect(new Peer(unauthorized).request('ping')).rejects.toMatchObject({ status: 401 });

    const lean = new LeanHttpClientTransport(url, { headers: { Authorization: `Bearer ${token}` } });
    cleanups.push(() => lean.close());
    const peer = new Peer(lean);
    await lean.start();
    await exercise(peer, lean);
    await lean.close();
  });

  it('reports a session the restarted server no longer knows (404) as an error, and the resilient wrapper recovers', async () => {
    const first = await fixtureServer();
    const lean = new LeanHttpClientTransport(new URL(first.url));
    cleanups.push(() => lean.close());
    const peer = new Peer(lean);
    await peer.handshake(lean);
    await peer.request('tools/list');

    const wrapper = new ResilientTransportWrapper({
      factory: () => new LeanHttpClientTransport(new URL(first.url)),
      initialDelayMs: 100,
      heartbeatIntervalMs: 0,
    });
    cleanups.push(() => wrapper.close());
    const wpeer = new Peer(wrapper);
    await wrapper.start();
    await wpeer.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'w', version: '1' },
    });
    await wrapper.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
    expect(
      (await wpeer.request('tools/call', { name: 'echo', arguments: { text: 'before' } })).result.content[0].text,
    ).toBe('before');

    await first.stop();
    const second = await fixtureServer(first.port);
    const err = await peer.request('tools/list').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HttpStatusError);
    expect((err as HttpStatusError).status).toBe(404);
    expect((err as Error).message).toMatch(/session .* expired/);
    expect(peer.errors.some((e) => e instanceof HttpStatusError && e.status === 404)).toBe(true);

    // The wrapper reconnects (a new session, initialize replayed) and serves calls again.
    const again = await waitFor(
      async () => {
        const res = await wpeer
          .request('tools/call', { name: 'echo', arguments: { text: 'after' } })
          .catch(() => undefined);
        return res && 'result' in res ? res : undefined;
      },
      15_000,
      'the wrapper to reconnect to the restarted server',
    );
    expect(again.result.content[0].text).toBe('after');
    expect(second.port).toBe(first.port);
  });

  it('closes an idle pooled socket itself after 4 s (before a default server would) and keeps working', async () => {
    const f = await fixtureServer();
    const r = await relay(f.url, 60_000);
    const lean = new LeanHttpClientTransport(new URL(r.url));
    cleanups.push(() => lean.close());
    const peer = new Peer(lean);
    await peer.handshake(lean);
    await waitFor(() => r.methods.includes('GET'), 5000, 'the GET stream');
    await peer.request('tools/list');
    expect(r.sockets.size).toBeGreaterThanOrEqual(2);
    // The relay keeps idle sockets for 60 s: once only the GET stream's socket is left (about
    // 4 s on), the client closed the idle one itself.
    await waitFor(() => r.sockets.size === 1, 20_000, 'the idle socket to be closed by the client');
    const again = await peer.request('tools/call', { name: 'echo', arguments: { text: 'still' } });
    expect(again.result.content[0].text).toBe('still');
    expect(peer.errors).toEqual([]);
  });

  it('rejects send and raises onerror when the connection is refused', async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const lean = new LeanHttpClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
    cleanups.push(() => lean.close());
    const peer = new Peer(lean);
    await expect(lean.send({ jsonrpc: '2.0', id: 1, method: 'ping' } as JSONRPCMessage)).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    expect(peer.errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(['ECONNREFUSED']);
  });
});
