// ChildProcessTransport against real processes: a real MCP server, a process tree that
// ignores SIGTERM and stdin EOF, spawn failures, stderr, exits, env and cwd.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  ChildProcessTransport,
  OversizeMessageError,
  type ChildProcessTransportOptions,
} from '../../../src/proxy/process/childProcessTransport.js';
import { Logger } from '../../../src/proxy/common/logger.js';
import { killTreeSync } from '../../../src/proxy/process/processTree.js';
import { expectGone, expectStoppedThenGone } from '../../helpers/expectGone.js';

const root = join(import.meta.dirname, '..', '..', '..');
const fixtures = join(root, 'tests', 'fixtures', 'childProcess');
const stubborn = join(fixtures, 'stubborn.mjs');
const scripted = join(fixtures, 'scripted.mjs');
const memoryServer = join(root, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
const node = process.execPath;
const FAST = { stdinGraceMs: 100, termGraceMs: 100, groupExitTimeoutMs: 10_000 };

let dir: string;
let logLines: string[];
let logger: Logger;
const transports: ChildProcessTransport[] = [];
const pids: number[] = [];

function make(opts: Omit<ChildProcessTransportOptions, 'name'> & { name?: string }): ChildProcessTransport {
  const t = new ChildProcessTransport({ name: 'srv', logger, ...FAST, ...opts });
  transports.push(t);
  return t;
}

/** The fixture's JSON output once it is completely written. */
function readJson(file: string): { env: Record<string, string>; cwd: string } | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // not there yet, or half written
  }
}

async function until<T>(what: string, get: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Sends a request and resolves with the reply carrying its id. */
function request(
  t: ChildProcessTransport,
  id: number,
  method: string,
  params: Record<string, unknown> = {},
): Promise<JSONRPCMessage> {
  return new Promise((resolve, reject) => {
    const prev = t.onmessage;
    const timer = setTimeout(() => reject(new Error(`no reply to ${method}`)), 10_000);
    t.onmessage = (m) => {
      if ('id' in m && m.id === id && !('method' in m)) {
        clearTimeout(timer);
        t.onmessage = prev;
        resolve(m);
      } else prev?.(m);
    };
    t.send({ jsonrpc: '2.0', id, method, params }).catch(reject);
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cpt-'));
  logLines = [];
  logger = new Logger('test', { level: 'debug', sinks: [{ write: (l) => logLines.push(l) }] });
});

afterEach(async () => {
  for (const t of transports.splice(0)) {
    if (t.pid !== undefined) pids.push(t.pid);
    await t.close().catch(() => undefined);
  }
  for (const pid of pids.splice(0)) killTreeSync(pid);
  rmSync(dir, { recursive: true, force: true });
});

describe('ChildProcessTransport', () => {
  it('talks to a real MCP server (initialize, tools/list) and leaves no process after close', async () => {
    const t = make({ command: node, args: [memoryServer], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } });
    let closes = 0;
    t.onclose = () => closes++;
    await t.start();
    const pid = t.pid!;
    const init = await request(t, 1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    expect(init).toMatchObject({ id: 1, result: { serverInfo: expect.any(Object) } });
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const list = (await request(t, 2, 'tools/list')) as unknown as { result: { tools: { name: string }[] } };
    expect(list.result.tools.map((x) => x.name)).toContain('create_entities');

    await t.close();
    expectGone(pid);
    expect(closes).toBe(1);
    expect(t.exitInfo?.expected).toBe(true); // it left on stdin EOF or SIGTERM, as asked
    await t.close(); // idempotent
    expect(closes).toBe(1);
    await expect(t.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(/not connected/);
  });

  it('kills a whole tree behind sh -c whose processes ignore SIGTERM and stdin EOF', async () => {
    const pidFile = join(dir, 'pids');
    const q = (s: string) => `'${s}'`;
    const script = `${q(node)} ${q(stubborn)} ${q(pidFile)} grandchild & exec ${q(node)} ${q(stubborn)} ${q(pidFile)} child`;
    const t = make({ command: 'sh', args: ['-c', script] });
    const exits: unknown[] = [];
    let closes = 0;
    t.onexit = (info) => exits.push(info);
    t.onclose = () => closes++;
    await t.start();
    const treePids = await until('both pids', () => {
      const lines = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim().split('\n').filter(Boolean) : [];
      return lines.length >= 2 ? lines.map((l) => Number(l.split(' ')[1])) : undefined;
    });
    pids.push(...treePids);
    expect(treePids).toContain(t.pid);
    expect(await request(t, 1, 'ping')).toMatchObject({ result: { role: 'child' } });

    await t.close();
    expectGone(t.pid!); // our own child: reaped by us
    // The grandchild is an orphan once sh is gone: stopped at close, reaped by pid 1 soon after.
    for (const pid of treePids) await expectStoppedThenGone(pid);
    expect(exits).toEqual([{ code: null, signal: 'SIGKILL', expected: true }]);
    expect(closes).toBe(1);
    // Both processes said they were ignoring the gentler steps.
    await until('stderr lines', () => t.stderrTail().some((l) => l.includes('child ignoring SIGTERM')));
    expect(t.stderrTail()).toEqual(expect.arrayContaining(['child ignoring stdin EOF', 'grandchild ignoring SIGTERM']));
  });

  it('a second close() while the first waits kills at once', async () => {
    const t = make({
      command: node,
      args: [stubborn, join(dir, 'pids'), 'child'],
      stdinGraceMs: 20_000,
      termGraceMs: 20_000,
    });
    await t.start();
    const pid = t.pid!;
    await until('ready', () => t.stderrTail().includes('child ready'));
    const first = t.close();
    // The first close has ended stdin and now waits out its 20 s grace.
    await until('the stdin EOF', () => t.stderrTail().includes('child ignoring stdin EOF'));
    // Without the second call the first would only SIGKILL after 40 s (past this test's timeout).
    await Promise.all([first, t.close()]);
    expect(t.exitInfo).toEqual({ code: null, signal: 'SIGKILL', expected: true });
    expectGone(pid);
  }, 15_000);

  it('start() rejects naming the command when it does not exist (and reports onerror, onclose)', async () => {
    const t = make({ command: 'definitely-not-a-command-7f3a', args: ['x'], name: 'ghost' });
    const errors: Error[] = [];
    let closes = 0;
    t.onerror = (e) => errors.push(e);
    t.onclose = () => closes++;
    await expect(t.start()).rejects.toThrow(
      /^cannot start server 'ghost': command 'definitely-not-a-command-7f3a' not found on PATH .+; install definitely-not-a-command-7f3a, or set "command" to an absolute path$/,
    );
    expect(errors[0]?.message).toMatch(/definitely-not-a-command-7f3a/);
    expect(closes).toBe(1);
    expect(t.pid).toBeUndefined();
    await t.close();
    expect(closes).toBe(1);
    expect(logLines.some((l) => l.includes('[error] [ghost] cannot start server'))).toBe(true);
  });

  it('names a missing working directory and a non-executable command', async () => {
    const a = make({ command: node, args: ['-e', ''], cwd: join(dir, 'nope') });
    await expect(a.start()).rejects.toThrow(/working directory '.*nope' not found \(ENOENT\)/);
    const b = make({ command: scripted }); // a .mjs file without the execute bit
    await expect(b.start()).rejects.toThrow(/command '.*scripted\.mjs' is not executable \(EACCES\)/);
  });

  it('captures stderr line by line (split writes, CRLF, final partial line), tags it and keeps a bounded tail', async () => {
    const t = make({ command: node, args: [scripted, 'stderr', '3'], name: 'talker', stderrTailLines: 3 });
    const seen: string[] = [];
    t.onstderr = (l) => seen.push(l);
    const closed = new Promise<void>((r) => (t.onclose = r));
    await t.start();
    await closed;
    expect(seen).toEqual(['line one', 'line two', 'line three', 'last words without newline']);
    expect(t.stderrTail()).toEqual(['line two', 'line three', 'last words without newline']);
    expect(logLines.filter((l) => l.includes('[info] [talker] line two'))).toHaveLength(1);
  });

  it('reports an unexpected exit: onexit with its code, onclose once, exitInfo; send then rejects', async () => {
    const t = make({ command: node, args: [scripted, 'stderr', '3'] });
    const exits: unknown[] = [];
    let closes = 0;
    t.onexit = (i) => exits.push(i);
    const closed = new Promise<void>((r) => (t.onclose = () => (closes++, r())));
    await t.start();
    const pid = t.pid!;
    await closed;
    expect(exits).toEqual([{ code: 3, signal: null, expected: false }]);
    expect(t.exitInfo).toEqual({ code: 3, signal: null, expected: false });
    expect(logLines.some((l) => l.includes('[warn] [srv] exited unexpectedly with code 3'))).toBe(true);
    await expect(t.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(/not connected/);
    await t.close();
    expect(closes).toBe(1);
    expectGone(pid);
  });

  it('gives the child a clean env (no ELECTRON_RUN_AS_NODE / MCP_BRIDGE_TOKEN unless configured) and its cwd', async () => {
    const saved = {
      a: process.env.ELECTRON_RUN_AS_NODE,
      b: process.env.MCP_BRIDGE_TOKEN,
      c: process.env.SOME_PARENT_SECRET,
    };
    process.env.ELECTRON_RUN_AS_NODE = '1';
    process.env.MCP_BRIDGE_TOKEN = 'parent-token';
    process.env.SOME_PARENT_SECRET = 's3cret';
    try {
      const out1 = join(dir, 'env1.json');
      const t1 = make({ command: node, args: [scripted, 'env', out1], env: { CONFIGURED: 'yes' }, cwd: dir });
      await t1.start();
      const r1 = await until('env1', () => readJson(out1));
      expect(r1.env.CONFIGURED).toBe('yes');
      expect(r1.env.ELECTRON_RUN_AS_NODE).toBeUndefined();
      expect(r1.env.MCP_BRIDGE_TOKEN).toBeUndefined();
      expect(r1.env.SOME_PARENT_SECRET).toBeUndefined();
      expect(r1.env.PATH).toBe(process.env.PATH);
      expect(realpathSync(r1.cwd)).toBe(realpathSync(dir));

      const out2 = join(dir, 'env2.json');
      const t2 = make({ command: node, args: [scripted, 'env', out2], env: { ELECTRON_RUN_AS_NODE: '1' } });
      await t2.start();
      const r2 = await until('env2', () => readJson(out2));
      expect(r2.env.ELECTRON_RUN_AS_NODE).toBe('1');
      expect(r2.env.MCP_BRIDGE_TOKEN).toBeUndefined();
      await Promise.all([t1.close(), t2.close()]);
    } finally {
      for (const [k, v] of [
        ['ELECTRON_RUN_AS_NODE', saved.a],
        ['MCP_BRIDGE_TOKEN', saved.b],
        ['SOME_PARENT_SECRET', saved.c],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('survives non-JSON and oversize stdout: warns, onerror, and keeps delivering messages', async () => {
    const t = make({ command: node, args: [scripted, 'noisy'], name: 'noisy', maxMessageBytes: 1024 });
    const errors: Error[] = [];
    const messages: JSONRPCMessage[] = [];
    t.onerror = (e) => errors.push(e);
    t.onmessage = (m) => messages.push(m);
    await t.start();
    await until('notification', () => messages.find((m) => 'method' in m && m.method === 'notifications/message'));
    expect(errors[0]?.message).toMatch(/not JSON-RPC: this is not json/);
    expect(errors[1]).toBeInstanceOf(OversizeMessageError);
    expect(errors[1]).toMatchObject({ idHint: 77 });
    expect(
      logLines.some((l) => l.includes('[warn] [noisy] non-JSON-RPC line on stdout ignored: this is not json')),
    ).toBe(true);
    // Still working afterwards.
    expect(await request(t, 5, 'echo')).toMatchObject({ id: 5, result: { method: 'echo' } });
  });

  it('send() honours backpressure for a message much larger than the pipe buffer', async () => {
    const t = make({ command: node, args: [scripted, 'env', join(dir, 'e.json')] });
    await t.start();
    const blob = 'y'.repeat(8 * 1024 * 1024);
    const reply = (await request(t, 9, 'big', { blob })) as unknown as { result: { len: number } };
    expect(reply.result.len).toBe(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'big', params: { blob } }).length);
  });

  it('rejects send() before start() and a second start()', async () => {
    const t = make({ command: node, args: [scripted, 'env', join(dir, 'e.json')] });
    await expect(t.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(/not connected/);
    await t.start();
    await expect(t.start()).rejects.toThrow(/already started/);
  });
});
