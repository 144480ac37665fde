// Protocol edges, through the built CLI: invalid and null request ids, an
// absurd Content-Length, two requests in flight under one id (stdio proxy, raw stdio); an
// absolute-form request target naming another host and a negative Content-Length (bridge,
// raw sockets).
import net from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FrameDecoder } from '../../src/proxy/stdio/framing.js';
import { cleanupBridges, startBridge } from '../helpers/bridgeProcess.js';
import { CliProcess, cleanup, configJson, INIT, INITIALIZED, tempDir, waitFor } from '../helpers/cliProcess.js';
import { fixtureEntry, readState } from '../helpers/proxyCli.js';
import { scaled } from '../helpers/loadScale.js';

afterEach(async () => {
  await cleanup();
  await cleanupBridges();
});

/** Writes `text` on a fresh connection and returns all the server wrote until it closed (or `ms`). */
function rawHttp(port: number, text: string, ms = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(out);
    }, ms);
    socket.on('data', (c) => (out += c.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.on('error', reject);
    socket.write(text);
  });
}

/** Every message on the CLI's stdout, whatever its framing (replies keep their request's). */
function framed(p: CliProcess): Array<Record<string, any>> {
  const decoder = new FrameDecoder();
  return [...decoder.push(p.stdout), ...decoder.end()].map(
    (f) => (f.kind === 'message' ? JSON.parse(f.body) : { oversize: f.bytes }) as Record<string, any>,
  );
}

const framedReply = (p: CliProcess, id: number) =>
  waitFor(() => framed(p).find((m) => m.id === id), 5000, `reply ${id}; stderr: ${p.stderr.slice(-500)}`);

describe('stdio proxy: protocol edges', () => {
  it('answers requests with an invalid or null id with -32600 and id null, never echoing the id', async () => {
    const p = new CliProcess(['--config', configJson({ fx: fixtureEntry('fx') }), '--idle-timeout', '0']);
    await p.initialize();
    p.write('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n');
    p.write('{"jsonrpc":"2.0","id":true,"method":"ping"}\n');
    p.write('{"jsonrpc":"2.0","id":null,"method":"ping"}\n');
    p.write('{"jsonrpc":"2.0","id":[1],"method":"tools/list"}\n');
    p.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    await p.reply(7);
    const others = p.messages().filter((m) => m.id !== 1 && m.id !== 7);
    expect(others).toHaveLength(4);
    for (const m of others) {
      expect(m.id).toBeNull();
      expect(m.error.code).toBe(-32600);
      expect(m.result).toBeUndefined();
    }
    p.child.stdin!.end();
    expect((await p.waitExit(10_000)).code).toBe(0);
  });

  it('refuses a Content-Length over the cap and reads the messages that follow', async () => {
    const p = new CliProcess(['--config', configJson({ fx: fixtureEntry('fx') }), '--idle-timeout', '0']);
    await p.initialize();
    const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
    p.write(`Content-Length: 99999999999\r\n\r\n${ping(5)}`);
    p.write(`Content-Length: ${Buffer.byteLength(ping(6))}\r\n\r\n${ping(6)}`);
    p.write(`${ping(7)}\n`);
    // A lying header followed at once by newline-framed messages resyncs there too.
    p.write(`Content-Length: 99999999999\r\n\r\n${ping(8)}\n${ping(9)}\n`);
    expect((await framedReply(p, 6)).result).toEqual({});
    expect((await framedReply(p, 7)).result).toEqual({});
    expect((await framedReply(p, 9)).result).toEqual({});
    for (const id of [5, 8]) {
      const refused = await framedReply(p, id);
      expect(refused.error.code).toBe(-32600);
      expect(refused.error.message).toMatch(/99999999999 bytes exceeds the 10485760-byte limit/);
    }
    p.child.stdin!.end();
    expect((await p.waitExit(10_000)).code).toBe(0);
  });

  it('refuses a second request under an id still in flight; a cancel then reaches the first', async () => {
    const state = join(tempDir(), 'state.jsonl');
    const p = new CliProcess(['--config', configJson({ fx: fixtureEntry('fx', [], state) }), '--idle-timeout', '0']);
    await p.initialize();
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' }); // the server is ready after this
    await p.reply(2);
    const call = {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'fx__slow', arguments: { ms: 1500, steps: 3 } },
    };
    p.send(call);
    await waitFor(
      () => readState(state).some((e) => e.event === 'slow-started'),
      scaled(10_000),
      'the first call upstream',
    );
    p.send(call);
    const refused = await p.reply(9, 5000);
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error.message).toMatch(/already in use/);
    p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9, reason: 'test' } });
    await waitFor(() => readState(state).some((e) => e.event === 'cancelled'), 5000, 'the server to see the cancel');
    // The first call was the one cancelled: no result for id 9 ever comes, only the one refusal.
    // A call of the same length sent now answers after any id-9 call still running upstream.
    p.send({ ...call, id: 10 });
    expect((await p.reply(10, 10_000)).result.content[0].text).toBe('slept 1500');
    expect(p.messages().filter((m) => m.id === 9)).toHaveLength(1);
    expect(readState(state).filter((e) => e.event === 'cancelled')).toHaveLength(1);
    p.child.stdin!.end();
    expect((await p.waitExit(10_000)).code).toBe(0);
  });
});

describe("stdio proxy: a refused duplicate id does not take the first request's framing", () => {
  it('answers the first request in its own (Content-Length) framing after the newline-framed duplicate was refused', async () => {
    const state = join(tempDir(), 'state.jsonl');
    const p = new CliProcess(['--config', configJson({ fx: fixtureEntry('fx', [], state) }), '--idle-timeout', '0']);
    await p.initialize();
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await p.reply(2);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'fx__slow', arguments: { ms: 1500, steps: 1 } },
    });
    p.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    await waitFor(
      () => readState(state).some((e) => e.event === 'slow-started'),
      scaled(10_000),
      'the first call upstream',
    );
    p.send(JSON.parse(body));
    p.child.stdin!.end();
    expect((await p.waitExit(10_000)).code).toBe(0);
    const out = p.stdout.toString('utf8');
    // The refusal went out newline-framed, the result under the header its request came with.
    expect(out).toMatch(/\n\{"jsonrpc":"2\.0","id":9,"error":\{"code":-32600/);
    expect(out).toMatch(/Content-Length: \d+\r\n\r\n\{"jsonrpc":"2\.0","id":9,"result"/);
  });
});

describe('stdio proxy: a cancel that arrives before its request was forwarded', () => {
  it('is not lost: the request, still waiting for its server to start, is never sent', async () => {
    const state = join(tempDir(), 'state.jsonl');
    const p = new CliProcess([
      '--config',
      configJson({ fx: fixtureEntry('fx', ['--start-delay', '1500'], state) }),
      '--idle-timeout',
      '0',
    ]);
    // The aggregate initialize waits for the server's first start, and what a client pipelines
    // behind it waits too: the call and its cancel arrive while the server is still starting.
    p.send(INIT);
    p.send(INITIALIZED);
    p.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'fx__slow', arguments: { ms: 300, steps: 1 } },
    });
    p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'test' } });
    p.send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    expect((await p.reply(1, 10_000)).result.protocolVersion).toBeTruthy();
    expect((await p.reply(4, 10_000)).result.tools.length).toBeGreaterThan(0);
    // Had id 3 been forwarded, its result would come before this call's (same length, sent later).
    p.send({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'fx__slow', arguments: { ms: 300, steps: 1 } },
    });
    expect((await p.reply(5, 10_000)).result.content[0].text).toBe('slept 300');
    expect(p.messages().filter((m) => m.id === 3)).toEqual([]);
    // Never sent, so the server never saw it cancelled either.
    expect(readState(state).filter((e) => e.event === 'cancelled')).toEqual([]);
    p.child.stdin!.end();
    expect((await p.waitExit(10_000)).code).toBe(0);
  });
});

describe('bridge: request-target and Content-Length edges', () => {
  it('refuses an absolute-form target naming another host, accepts its own, and answers Content-Length: -1 with 400', async () => {
    const token = 'a-test-token-of-sufficient-length';
    const b = await startBridge({ config: { mcpServers: { fx: fixtureEntry('fx') } }, token });
    const host = `127.0.0.1:${b.port}`;
    const head = (target: string, extra = '') =>
      `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n${extra}\r\n`;

    const evil = await rawHttp(b.port, head('http://evil.com/status'));
    expect(evil).toMatch(/^HTTP\/1\.1 403 /);
    expect(evil).not.toMatch(/"servers"/);
    const evilUpgrade = await rawHttp(
      b.port,
      head('http://evil.com/mcp/fx', 'Upgrade: mcp-stream\r\nConnection: Upgrade\r\n'),
    );
    expect(evilUpgrade).toMatch(/^HTTP\/1\.1 403 /);
    const own = await rawHttp(b.port, head(`http://${host}/status`));
    expect(own).toMatch(/^HTTP\/1\.1 200 /);
    expect(own).toMatch(/"servers"/);

    const negative = await rawHttp(
      b.port,
      `POST /mcp/fx HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n{}`,
    );
    expect(negative).toMatch(/^HTTP\/1\.1 400 /);
    // The bridge still serves.
    expect((await b.fetch('/health')).status).toBe(200);
  });
});
