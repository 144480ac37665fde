// ResilientTransportWrapper against a real streamable HTTP server on 127.0.0.1 (the fixture),
// with every timing shortened through its options.
import { afterEach, describe, expect, it } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createServer } from 'node:net';
import { ResilientTransportWrapper, type ResilientState } from '../../../src/proxy/upstream/resilientTransport.js';
import { Logger } from '../../../src/proxy/common/logger.js';
import { readState, startHttpFixture, tempDir, waitFor } from '../../helpers/proxyCli.js';
import { scaled } from '../../helpers/loadScale.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/**
 * How long a test watches for something that must not happen (a second answer, another
 * attempt). Either would follow within tens of ms (the backoff here starts at 50 ms), so a
 * wrong one shows up many times over within this, even on a loaded machine.
 */
const NOTHING_MORE_MS = 600;

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
} as JSONRPCMessage;

function wrapper(url: string, opts: Partial<ConstructorParameters<typeof ResilientTransportWrapper>[0]> = {}) {
  const states: { s: ResilientState; at: number }[] = [];
  const received: Record<string, unknown>[] = [];
  const w = new ResilientTransportWrapper({
    factory: () => new StreamableHTTPClientTransport(new URL(url)),
    initialDelayMs: 50,
    maxDelayMs: 400,
    heartbeatIntervalMs: 0,
    attemptTimeoutMs: 2000,
    onstatechange: (s) => states.push({ s, at: Date.now() }),
    ...opts,
  });
  w.onmessage = (m) => received.push(m as unknown as Record<string, unknown>);
  cleanups.push(() => w.close());
  const reply = (id: number | string) =>
    waitFor(() => received.find((m) => m.id === id), scaled(15_000), `reply ${id}`);
  return { w, states, received, reply };
}

async function handshake(t: ReturnType<typeof wrapper>): Promise<void> {
  await t.w.send(INIT);
  await t.reply(1);
  await t.w.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
}

describe('ResilientTransportWrapper', () => {
  it('goes idle -> connecting -> connected -> closed, and start() twice throws', async () => {
    const server = await startHttpFixture('http');
    cleanups.push(server.stop);
    const t = wrapper(server.url);
    await t.w.start();
    await expect(t.w.start()).rejects.toThrow(/already started/);
    await handshake(t);
    await t.w.close();
    expect(t.states.map((s) => s.s)).toEqual(['connecting', 'connected', 'closed']);
  });

  it('retries with backoff doubling to the cap while the server is down, then connects and answers the waiting initialize', async () => {
    const port = await freePort();
    let transports = 0;
    const t = wrapper(`http://127.0.0.1:${port}/mcp`, {
      retryBeforeEstablished: true,
      factory: () => (transports++, new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`))),
    });
    // Streamable HTTP contacts the server on the first message, so start() succeeds; the
    // initialize then fails to send and the wrapper keeps retrying in the background.
    await t.w.start();
    await t.w.send(INIT);
    await waitFor(() => t.w.state === 'reconnecting', scaled(5000), 'reconnecting');
    // Still retrying while the server stays down: three more transports (50 + 100 + 200 ms of backoff).
    await waitFor(() => transports >= 4, scaled(5000), 'three retries while the server is down');
    expect(t.w.state).not.toBe('closed');
    const server = await startHttpFixture('http', { port });
    cleanups.push(server.stop);
    const reply = await t.reply(1);
    expect((reply.result as { serverInfo: { name: string } }).serverInfo.name).toBe('http');
    expect(t.w.state).toBe('connected');
    // Answered once: the replay, not a second initialize from the queue.
    await new Promise((r) => setTimeout(r, NOTHING_MORE_MS));
    expect(t.received.filter((m) => m.id === 1)).toHaveLength(1);
  });

  it('spaces attempts 50, 100, 200, 400, 400 ms apart (doubling, capped)', async () => {
    const port = await freePort();
    const attemptsAt: number[] = [];
    // The delay the wrapper chose before each retry, from its own "retrying in <n> ms" line.
    const chosen: number[] = [];
    const logger = new Logger('t', {
      level: 'warn',
      sinks: [
        {
          write: (line) => {
            const m = /retrying in (\d+) ms/.exec(line);
            if (m) chosen.push(Number(m[1]));
          },
        },
      ],
    });
    const w = new ResilientTransportWrapper({
      factory: () => {
        attemptsAt.push(Date.now());
        return new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
      },
      initialDelayMs: 50,
      maxDelayMs: 400,
      heartbeatIntervalMs: 0,
      retryBeforeEstablished: true,
      logger,
    });
    cleanups.push(() => w.close());
    await w.send(INIT); // an initialize makes every attempt try the handshake
    await w.start();
    await waitFor(() => attemptsAt.length >= 6, scaled(10_000), 'six attempts');
    const expected = [50, 100, 200, 400, 400];
    expect(chosen.slice(0, 5), 'delays chosen before the retries').toEqual(expected);
    // On the wall clock only the lower bound holds on a loaded machine: a timer never fires
    // early, but may fire late by any amount.
    const gaps = attemptsAt.slice(1, 6).map((t, i) => t - attemptsAt[i]);
    gaps.forEach((g, i) => expect(g, `gap before attempt ${i + 2}`).toBeGreaterThanOrEqual(expected[i] - 5));
  });

  it('by default gives up on a first connection that fails (refused, 401), with the cause, instead of retrying', async () => {
    const { LeanHttpClientTransport } = await import('../../../src/proxy/upstream/leanHttpClientTransport.js');
    const { unauthorizedServer } = await import('../../helpers/faultyRemotes.js');
    const port = await freePort();
    let attempts = 0;
    const t = wrapper(`http://127.0.0.1:${port}/mcp`, {
      factory: () => {
        attempts++;
        return new LeanHttpClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
      },
    });
    await t.w.start();
    await expect(t.w.send(INIT)).rejects.toThrow(/connection refused/);
    expect(t.w.state).toBe('closed');
    expect(t.w.failure?.message).toMatch(/connection refused by 127\.0\.0\.1/);
    const denied = await unauthorizedServer();
    cleanups.push(denied.stop);
    const u = wrapper(`http://127.0.0.1:${denied.port}/mcp`, {
      factory: () => new LeanHttpClientTransport(new URL(`http://127.0.0.1:${denied.port}/mcp`)),
    });
    await u.w.start();
    await expect(u.w.send(INIT)).rejects.toThrow(/HTTP 401 Unauthorized/);
    expect((u.w.failure as { status?: number }).status).toBe(401);
    await new Promise((r) => setTimeout(r, NOTHING_MORE_MS));
    expect(attempts).toBe(1);
    expect(denied.total()).toBe(1);
    expect(u.states.map((s) => s.s)).toEqual(['connecting', 'connected', 'closed']);
  });

  it('reconnects a connection that worked, but stops at a 401 instead of looping', async () => {
    const { LeanHttpClientTransport } = await import('../../../src/proxy/upstream/leanHttpClientTransport.js');
    const { unauthorizedServer } = await import('../../helpers/faultyRemotes.js');
    const server = await startHttpFixture('http');
    cleanups.push(server.stop);
    const t = wrapper(server.url, { factory: () => new LeanHttpClientTransport(new URL(server.url)) });
    await t.w.start();
    await handshake(t);
    await server.stop();
    const denied = await unauthorizedServer(server.port);
    cleanups.push(denied.stop);
    // The next message finds the server gone and the wrapper reconnects, into a 401.
    void t.w.send({ jsonrpc: '2.0', id: 7, method: 'ping' } as JSONRPCMessage).catch(() => undefined);
    await waitFor(() => t.w.state === 'closed', 5000, 'closed after the 401');
    expect((t.w.failure as { status?: number }).status).toBe(401);
    const asked = denied.total();
    await new Promise((r) => setTimeout(r, NOTHING_MORE_MS));
    expect(denied.total()).toBe(asked);
    expect(asked).toBeLessThanOrEqual(2);
  });

  it('queues up to maxQueue messages while reconnecting and rejects the next one at once', async () => {
    const port = await freePort();
    const t = wrapper(`http://127.0.0.1:${port}/mcp`, { maxQueue: 100, retryBeforeEstablished: true });
    await t.w.start();
    await t.w.send(INIT);
    await waitFor(() => t.w.state === 'reconnecting', scaled(5000), 'reconnecting');
    const queued = Array.from({ length: 100 }, (_, i) =>
      t.w.send({ jsonrpc: '2.0', id: 100 + i, method: 'ping' } as JSONRPCMessage),
    );
    expect(t.w.queued).toBe(100);
    await expect(t.w.send({ jsonrpc: '2.0', id: 999, method: 'ping' } as JSONRPCMessage)).rejects.toThrow(
      /100 messages are already queued/,
    );
    await t.w.close();
    const settled = await Promise.allSettled(queued);
    expect(settled.every((s) => s.status === 'rejected')).toBe(true);
  });

  it('reconnects after 3 failed heartbeats, replays initialize on the new connection, and delivers what was queued', async () => {
    const server = await startHttpFixture('http');
    cleanups.push(server.stop);
    // A ping timeout a loaded machine does not reach by itself three times in a row.
    const t = wrapper(server.url, { heartbeatIntervalMs: 200, heartbeatTimeoutMs: 500, maxHeartbeatFailures: 3 });
    await t.w.start();
    await handshake(t);
    // A frozen server answers nothing: heartbeats time out.
    process.kill(server.child.pid!, 'SIGSTOP');
    cleanups.push(() => void process.kill(server.child.pid!, 'SIGCONT'));
    await waitFor(() => t.w.state === 'reconnecting', 15_000, 'reconnecting after heartbeat failures');
    const later = t.w.send({ jsonrpc: '2.0', id: 42, method: 'tools/list' } as JSONRPCMessage);
    process.kill(server.child.pid!, 'SIGCONT');
    await later;
    const reply = await t.reply(42);
    expect(Array.isArray((reply.result as { tools: unknown[] }).tools)).toBe(true);
    // The overlapping-heartbeat guard means failures counted one at a time: 3 before reconnect.
    expect(t.states.some((s) => s.s === 'reconnecting')).toBe(true);
    expect(t.w.state).toBe('connected');
  });

  it('answers requests in flight when the connection drops with a clear error, and reconnects', async () => {
    const dir = tempDir();
    cleanups.push(dir.remove);
    const state = `${dir.path}/state.jsonl`;
    const server = await startHttpFixture('http', { stateFile: state });
    cleanups.push(server.stop);
    const t = wrapper(server.url);
    await t.w.start();
    await handshake(t);
    await t.w.send({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms: 5000 } },
    } as JSONRPCMessage);
    await waitFor(
      () => readState(state).some((e) => e.event === 'slow-started'),
      scaled(10_000),
      'the call at the server',
    );
    await server.stop();
    const reply = await t.reply(7);
    expect((reply.error as { message: string }).message).toMatch(/connection to upstream lost/);
    const again = await startHttpFixture('http', { port: server.port });
    cleanups.push(again.stop);
    await t.w.send({ jsonrpc: '2.0', id: 8, method: 'tools/list' } as JSONRPCMessage);
    expect((await t.reply(8)).result).toBeDefined();
  });
});
