import { afterEach, describe, expect, it, vi } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { PassThrough, Writable } from 'node:stream';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import {
  ListToolsRequestSchema,
  LATEST_PROTOCOL_VERSION,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { FrameDecoder, type DecodedFrame } from '../../../src/proxy/stdio/framing.js';
import { Logger } from '../../../src/proxy/common/logger.js';
import {
  DEFAULT_IDLE_TIMEOUT_MS,
  StdioServerTransport,
  type StdioServerTransportOptions,
} from '../../../src/proxy/stdio/stdioServerTransport.js';

const MiB = 1024 * 1024;
/** An idle timer that wrongly fires at once (a 0, or a timeout past Node's timer range) does so well within this. */
const NEVER_FIRES_WINDOW_MS = 200;

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** A transport over PassThroughs, decoding what it writes with a second FrameDecoder. */
function harness(opts: StdioServerTransportOptions = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const logLines: string[] = [];
  const logger = new Logger('t', { level: 'debug', sinks: [{ write: (l) => logLines.push(l) }] });
  const transport = new StdioServerTransport({ input, output, logger, ...opts });
  const received: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let closes = 0;
  transport.onmessage = (m) => received.push(m);
  transport.onerror = (e) => errors.push(e);
  transport.onclose = () => closes++;
  const outDecoder = new FrameDecoder({ maxMessageBytes: 64 * MiB });
  const outFrames: DecodedFrame[] = [];
  const rawOut: Buffer[] = [];
  output.on('data', (c: Buffer) => {
    rawOut.push(c);
    outFrames.push(...outDecoder.push(c));
  });
  const waitFor = async (cond: () => boolean, what: string, ms = 10_000) => {
    const deadline = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const replies = () =>
    outFrames.map((f) => {
      if (f.kind !== 'message') throw new Error('oversize output');
      return { framing: f.framing, msg: JSON.parse(f.body) as Record<string, unknown> };
    });
  return {
    input,
    output,
    transport,
    received,
    errors,
    logLines,
    outFrames,
    rawOut,
    replies,
    waitFor,
    closes: () => closes,
  };
}

const req = (id: number | string, method = 'ping', params?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const cl = (json: string) => `Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;

describe('StdioServerTransport: messages and framing', () => {
  it('delivers parsed messages and answers each request in its own framing', async () => {
    const h = harness();
    await h.transport.start();
    expect(h.transport.lastFraming).toBe('newline');
    await h.transport.send({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'before any input' },
    });
    h.input.write(req(1) + '\n' + cl(req(2)));
    await h.waitFor(() => h.received.length === 2, 'two requests');
    expect(h.received.map((m) => (m as { id: number }).id)).toEqual([1, 2]);
    expect(h.transport.lastFraming).toBe('content-length');
    // Reply out of order: each still goes out in the framing of its request.
    await h.transport.send({ jsonrpc: '2.0', id: 2, result: { text: 'héllo 世界 🎉' } });
    await h.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    // A proxy-originated message follows the client's latest framing.
    await h.transport.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await h.waitFor(() => h.outFrames.length === 4, 'four frames out');
    expect(h.replies()).toEqual([
      {
        framing: 'newline',
        msg: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'before any input' } },
      },
      { framing: 'content-length', msg: { jsonrpc: '2.0', id: 2, result: { text: 'héllo 世界 🎉' } } },
      { framing: 'newline', msg: { jsonrpc: '2.0', id: 1, result: {} } },
      { framing: 'content-length', msg: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } },
    ]);
    // The header states the body's UTF-8 byte count, not its UTF-16 length.
    const raw = Buffer.concat(h.rawOut).toString('utf8');
    const m = /Content-Length: (\d+)\r\n\r\n(\{"jsonrpc":"2\.0","id":2,[^\n]*?\}\})/.exec(raw);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBe(Buffer.byteLength(m![2]!));
    expect(Number(m![1])).toBeGreaterThan(m![2]!.length);
    expect(h.errors).toEqual([]);
    await h.transport.close();
  });

  it('keeps string and numeric ids apart when choosing the reply framing', async () => {
    const h = harness();
    await h.transport.start();
    h.input.write(cl(req('1')) + req(1) + '\n');
    await h.waitFor(() => h.received.length === 2, 'requests');
    await h.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    await h.transport.send({ jsonrpc: '2.0', id: '1', result: {} });
    await h.waitFor(() => h.outFrames.length === 2, 'replies');
    expect(h.replies().map((r) => [r.msg.id, r.framing])).toEqual([
      [1, 'newline'],
      ['1', 'content-length'],
    ]);
    await h.transport.close();
  });

  it('answers invalid JSON with -32700 and non-JSON-RPC values and batches with -32600, in the offending framing', async () => {
    const h = harness();
    await h.transport.start();
    h.input.write('{not json\n');
    h.input.write(cl('also not json'));
    h.input.write('{"foo":1}\n');
    h.input.write(cl('{"jsonrpc":"2.0","id":5}'));
    h.input.write('[{"jsonrpc":"2.0","id":6,"method":"ping"}]\n');
    h.input.write('42\n');
    h.input.write('{"jsonrpc":"1.0","id":"x","method":"ping"}\n');
    h.input.write(req(9) + '\n');
    await h.waitFor(() => h.received.length === 1 && h.outFrames.length === 7, 'error replies');
    expect(h.replies().map((r) => [r.framing, r.msg.id, (r.msg.error as { code: number }).code])).toEqual([
      ['newline', null, -32700],
      ['content-length', null, -32700],
      ['newline', null, -32600],
      ['content-length', 5, -32600],
      ['newline', null, -32600],
      ['newline', null, -32600],
      ['newline', 'x', -32600],
    ]);
    expect(h.replies().every((r) => r.msg.jsonrpc === '2.0')).toBe(true);
    expect(h.received).toEqual([JSON.parse(req(9))]);
    await h.transport.close();
  });

  it('answers a 12 MiB line with a size error naming the cap, then serves the next request', async () => {
    const h = harness();
    await h.transport.start();
    const big = Buffer.alloc(12 * MiB, 0x61);
    big.write('{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"x":"', 0);
    for (let off = 0; off < big.length; off += 256 * 1024) {
      if (!h.input.write(big.subarray(off, off + 256 * 1024))) await once(h.input, 'drain');
    }
    h.input.write('"}}\n' + req(42) + '\n');
    await h.waitFor(() => h.received.length === 1 && h.outFrames.length === 1, 'oversize reply and next request');
    const [reply] = h.replies();
    expect(reply!.framing).toBe('newline');
    expect(reply!.msg.id).toBe(41);
    const error = reply!.msg.error as { code: number; message: string };
    expect(error.code).toBe(-32600);
    expect(error.message).toContain(String(12 * MiB + 3));
    expect(error.message).toContain(String(10 * MiB));
    expect((h.received[0] as { id: number }).id).toBe(42);
    await h.transport.close();
  });

  it('answers an oversize Content-Length message in that framing and keeps serving', async () => {
    const h = harness({ maxMessageBytes: 1024 });
    await h.transport.start();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'x', params: { s: 'é'.repeat(2000) } });
    h.input.write(cl(body) + cl(req(2)));
    await h.waitFor(() => h.received.length === 1 && h.outFrames.length === 1, 'replies');
    expect(h.replies()[0]!.framing).toBe('content-length');
    expect(h.replies()[0]!.msg.id).toBe('big');
    expect((h.received[0] as { id: number }).id).toBe(2);
    await h.transport.close();
  });

  it("fails our request at once when the client's answer to it is over the cap, telling the client with id null", async () => {
    const h = harness({ maxMessageBytes: 1024 });
    await h.transport.start();
    await h.transport.send({ jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: {} });
    await h.transport.send({ jsonrpc: '2.0', id: 8, method: 'roots/list' });
    // As the SDK writes it, id last: only the end of the skipped answer names it.
    h.input.write(
      `${JSON.stringify({ result: { content: { type: 'text', text: 'x'.repeat(4000) } }, jsonrpc: '2.0', id: 7 })}\n`,
    );
    await h.waitFor(
      () => h.received.length === 1 && h.outFrames.length === 3,
      'the failed request and the client told',
    );
    expect(h.received[0]).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32603,
        message: expect.stringMatching(
          /^the client answered with a 40\d\d-byte message, over the 1024-byte limit \(--max-message-bytes\); skipped$/,
        ),
      },
    });
    // The id is ours, not one of the client's requests: the client is told with id null.
    expect(h.replies()[2]!.msg).toMatchObject({ id: null, error: { code: -32600 } });
    // With no id to be read, every request still awaiting the client's answer fails (here 8).
    h.input.write(
      `${JSON.stringify({ jsonrpc: '2.0', result: { pad: 'x'.repeat(4000) }, id: 8, trailer: 'y'.repeat(4000) })}\n`,
    );
    await h.waitFor(() => h.received.length === 2, 'the request still awaited to fail');
    expect(h.received[1]).toMatchObject({
      id: 8,
      error: { code: -32603, message: expect.stringContaining('whose id cannot be read') },
    });
    await h.transport.close();
  });

  it('survives 1 MiB of random bytes: errors for the garbage, then serves the request', async () => {
    for (const allowNewlines of [false, true]) {
      const h = harness();
      await h.transport.start();
      const junk = randomBytes(MiB);
      if (!allowNewlines) for (let i = 0; i < junk.length; i++) if (junk[i] === 0x0a) junk[i] = 0x20;
      h.input.write(Buffer.concat([Buffer.from('\x01'), junk, Buffer.from('\n' + req('after-junk') + '\n')]));
      await h.waitFor(() => h.received.length === 1, 'the request after the junk');
      expect((h.received[0] as { id: string }).id).toBe('after-junk');
      // Replies written in one tick leave together at its end (corkForTick).
      await h.waitFor(() => h.replies().length > 0, 'the error replies');
      const replies = h.replies();
      for (const r of replies) expect([-32700, -32600]).toContain((r.msg.error as { code: number }).code);
      if (!allowNewlines) expect(replies.map((r) => (r.msg.error as { code: number }).code)).toEqual([-32700]);
      await h.transport.close();
    }
  });
});

describe('StdioServerTransport: with the SDK Server', () => {
  it('carries a real MCP handshake and tools/list, each answered in its request framing', async () => {
    const h = harness();
    const server = new Server({ name: 'framing-test', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'wörld', inputSchema: { type: 'object' } }],
    }));
    await server.connect(h.transport);
    const init = {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    };
    h.input.write(cl(req(1, 'initialize', init)));
    await h.waitFor(() => h.outFrames.length === 1, 'initialize result');
    h.input.write(
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n' + req(2, 'tools/list') + '\n',
    );
    await h.waitFor(() => h.outFrames.length === 2, 'tools/list result');
    const [initReply, listReply] = h.replies();
    expect(initReply!.framing).toBe('content-length');
    expect((initReply!.msg.result as { serverInfo: { name: string } }).serverInfo.name).toBe('framing-test');
    expect(listReply!.framing).toBe('newline');
    expect(listReply!.msg.result).toEqual({ tools: [{ name: 'wörld', inputSchema: { type: 'object' } }] });
    await server.close();
    expect(h.closes()).toBe(1); // Protocol chains the onclose set before connect()
    expect(h.input.listenerCount('data')).toBe(0);
  });
});

describe('StdioServerTransport: lifecycle', () => {
  it('flushes a final message without newline at input end, then closes once', async () => {
    const h = harness();
    await h.transport.start();
    h.input.end(req(3));
    await h.waitFor(() => h.closes() === 1, 'close');
    expect(h.received).toEqual([JSON.parse(req(3))]);
    await h.transport.close();
    expect(h.closes()).toBe(1);
  });

  it('start() twice throws; close() is idempotent, fires onclose once and detaches', async () => {
    const h = harness();
    const dataListeners = h.input.listenerCount('data');
    await h.transport.start();
    await expect(h.transport.start()).rejects.toThrow(/already started/);
    expect(h.input.listenerCount('data')).toBe(dataListeners + 1);
    await h.transport.close();
    await h.transport.close();
    expect(h.closes()).toBe(1);
    expect(h.input.listenerCount('data')).toBe(dataListeners);
    expect(h.input.listenerCount('end')).toBe(0);
    h.input.write(req(1) + '\n');
    h.input.emit('error', new Error('late error after close must not throw'));
    await new Promise((r) => setImmediate(r));
    expect(h.received).toEqual([]);
  });

  it('the idle timeout destroys the input and closes; inbound messages reset it; 0 disables it', async () => {
    const h = harness({ idleTimeoutMs: 50 });
    await h.transport.start();
    await within(new Promise<void>((r) => (h.transport.onclose = r)), 5000, 'idle close');
    expect(h.input.destroyed).toBe(true);
    expect(h.logLines.some((l) => l.includes('no message for 50 ms'))).toBe(true);

    // A message every 40 ms, 1600 ms in all: twice the timeout, whose 800 ms leave a loaded
    // machine room to delay a write.
    const busy = harness({ idleTimeoutMs: 800 });
    await busy.transport.start();
    for (let i = 0; i < 40; i++) {
      busy.input.write(req(i) + '\n');
      await new Promise((r) => setTimeout(r, 40));
    }
    expect(busy.closes()).toBe(0);
    expect(busy.received.length).toBe(40);
    await within(new Promise<void>((r) => (busy.transport.onclose = r)), 5000, 'idle close after traffic stops');
    expect(busy.input.destroyed).toBe(true);

    const huge = harness({ idleTimeoutMs: 2 ** 40 }); // beyond Node's timer range: must not fire at once
    await huge.transport.start();

    const never = harness({ idleTimeoutMs: 0 });
    await never.transport.start();
    await new Promise((r) => setTimeout(r, NEVER_FIRES_WINDOW_MS));
    expect(never.closes()).toBe(0);
    expect(never.input.destroyed).toBe(false);
    expect(huge.closes()).toBe(0);
    await never.transport.close();
    await huge.transport.close();
  });

  it('idleTimeoutMs 0 means never, not the default: past the default on a fake clock, only the default one closed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const never = harness({ idleTimeoutMs: 0 });
      const byDefault = harness();
      await never.transport.start();
      await byDefault.transport.start();
      vi.advanceTimersByTime(DEFAULT_IDLE_TIMEOUT_MS + 1);
      expect(byDefault.closes()).toBe(1); // the control: the fake clock does reach the idle timer
      expect(byDefault.input.destroyed).toBe(true);
      expect(never.closes()).toBe(0);
      expect(never.input.destroyed).toBe(false);
      await never.transport.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('StdioServerTransport: write failures and backpressure', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) {
      if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    }
  });

  async function exitedChild(script: string): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(child);
    return child;
  }

  async function assertGone(child: ChildProcess): Promise<void> {
    if (child.exitCode === null && child.signalCode === null) await within(once(child, 'exit'), 5000, 'child exit');
    expect(() => process.kill(child.pid!, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  }

  it('a real pipe whose reader has exited closes the transport cleanly: send resolves, closedByPeer, no onerror', async () => {
    const child = await exitedChild('process.exit(0)');
    await within(once(child, 'exit'), 5000, 'child exit');
    const h = harness({ output: child.stdin! });
    await h.transport.start();
    for (let i = 0; i < 50 && !h.transport.closedByPeer; i++) {
      await within(h.transport.send({ jsonrpc: '2.0', method: 'notifications/x', params: { i } }), 5000, 'send');
    }
    expect(h.transport.closedByPeer).toBe(true);
    expect(h.closes()).toBe(1);
    expect(h.errors).toEqual([]);
    await within(h.transport.send({ jsonrpc: '2.0', method: 'after' }), 5000, 'send after peer gone');
    expect(h.closes()).toBe(1);
    await assertGone(child);
  });

  it('a send blocked on backpressure resolves when the reader dies (EPIPE mid-write)', async () => {
    const child = await exitedChild('setTimeout(() => process.exit(0), 300)');
    const h = harness({ output: child.stdin! });
    await h.transport.start();
    const big = 'x'.repeat(4 * MiB); // far more than a pipe buffer: the write must wait
    await within(
      h.transport.send({ jsonrpc: '2.0', method: 'notifications/big', params: { big } }),
      10_000,
      'blocked send',
    );
    expect(h.transport.closedByPeer).toBe(true);
    expect(h.logLines.some((l) => l.includes('output closed by peer (EPIPE)'))).toBe(true);
    expect(h.closes()).toBe(1);
    expect(h.errors).toEqual([]);
    await assertGone(child);
  });

  it('write after end and write after destroy close cleanly', async () => {
    for (const kill of [(o: PassThrough) => o.end(), (o: PassThrough) => o.destroy()]) {
      const output = new PassThrough();
      const h = harness({ output });
      await h.transport.start();
      kill(output);
      await within(h.transport.send({ jsonrpc: '2.0', id: 1, result: {} }), 5000, 'send');
      await new Promise((r) => setImmediate(r));
      expect(h.transport.closedByPeer).toBe(true);
      expect(h.closes()).toBe(1);
      expect(h.errors).toEqual([]);
    }
  });

  it('any other write error goes to onerror and rejects send, without closing', async () => {
    const output = new Writable({
      write(_chunk, _enc, cb) {
        cb(Object.assign(new Error('disk full'), { code: 'ENOSPC' }));
      },
    });
    const h = harness({ output });
    await h.transport.start();
    await expect(h.transport.send({ jsonrpc: '2.0', id: 1, result: {} })).rejects.toThrow('disk full');
    await new Promise((r) => setImmediate(r));
    expect(h.errors.map((e) => e.message)).toEqual(['disk full']);
    expect(h.closes()).toBe(0);
    expect(h.transport.closedByPeer).toBe(false);
    await h.transport.close();
  });

  it('send() waits for drain under backpressure', async () => {
    const pending: (() => void)[] = [];
    const output = new Writable({
      highWaterMark: 16,
      write(_chunk, _enc, cb) {
        pending.push(() => cb());
      },
    });
    const h = harness({ output });
    await h.transport.start();
    let done = 0;
    const sends = [1, 2, 3].map((id) =>
      h.transport.send({ jsonrpc: '2.0', id, result: { pad: 'x'.repeat(64) } }).then(() => done++),
    );
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(done).toBe(0);
    for (let i = 0; i < 1000 && done < 3; i++) {
      pending.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await within(Promise.all(sends), 5000, 'sends');
    expect(done).toBe(3);
    expect(output.listenerCount('drain')).toBe(0);
    await h.transport.close();
  });
});

describe('StdioServerTransport: real process stdio', () => {
  it('serves over process.stdin/stdout by default and lets the process exit at stdin EOF', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stdio-transport-'));
    try {
      buildSync({
        entryPoints: [join(import.meta.dirname, '../../../src/proxy/stdio/stdioServerTransport.ts')],
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile: join(dir, 'transport.mjs'),
        logLevel: 'silent',
      });
      writeFileSync(
        join(dir, 'server.mjs'),
        `import { StdioServerTransport } from './transport.mjs';
const t = new StdioServerTransport();
t.onmessage = (m) => { if (m.method && m.id !== undefined) void t.send({ jsonrpc: '2.0', id: m.id, result: { echo: m.params ?? null } }); };
t.onclose = () => process.stderr.write('transport closed\\n');
await t.start();
`,
      );
      const child = spawn(process.execPath, [join(dir, 'server.mjs')], { stdio: ['pipe', 'pipe', 'pipe'] });
      const frames: DecodedFrame[] = [];
      const decoder = new FrameDecoder();
      let stderr = '';
      child.stdout!.on('data', (c: Buffer) => frames.push(...decoder.push(c)));
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      try {
        child.stdin!.write(req(1, 'echo', { s: 'plain' }) + '\n');
        child.stdin!.write(cl(req(2, 'echo', { s: 'ünïcödé 🎉' })));
        child.stdin!.write('not json\n');
        const deadline = Date.now() + 10_000;
        while (frames.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        const seen = frames.map((f) => (f.kind === 'message' ? [f.framing, JSON.parse(f.body)] : f));
        expect(seen).toContainEqual(['newline', { jsonrpc: '2.0', id: 1, result: { echo: { s: 'plain' } } }]);
        expect(seen).toContainEqual([
          'content-length',
          { jsonrpc: '2.0', id: 2, result: { echo: { s: 'ünïcödé 🎉' } } },
        ]);
        expect(seen).toContainEqual([
          'newline',
          { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: invalid JSON' } },
        ]);
        const exited = once(child, 'exit');
        child.stdin!.end();
        const [code] = (await within(exited, 10_000, 'server exit after stdin EOF')) as [number | null];
        expect(code).toBe(0); // nothing called process.exit: the loop simply emptied
        expect(stderr).toContain('transport closed');
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      expect(() => process.kill(child.pid!, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
