// Stdio aggregation end to end: the built CLI under an SDK client, real upstream servers.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CreateMessageRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CLI,
  connectProxy,
  ensureBuilt,
  EVERYTHING,
  fixtureEntry,
  readState,
  tempDir,
  waitFor,
  waitNoProcess,
  type ProxyHandle,
} from '../../helpers/proxyCli.js';
import { FIXTURES } from '../../helpers/paths.js';
import { recordProgress } from '../../helpers/progressRecorder.js';

let handles: ProxyHandle[] = [];
let dirs: { remove: () => void }[] = [];
let cleanupChild: ChildProcess | undefined;

beforeAll(() => ensureBuilt());
afterEach(async () => {
  if (cleanupChild?.pid) {
    cleanupChild.stdin?.end();
    expect(await waitNoProcess(cleanupChild.pid, 8000)).toBe(true);
    cleanupChild = undefined;
  }
  for (const h of handles) await h.close();
  handles = [];
  for (const d of dirs) d.remove();
  dirs = [];
});

async function proxy(
  servers: Record<string, unknown>,
  extra: string[] = [],
  caps: Record<string, unknown> = {},
  top: Record<string, unknown> = {},
) {
  const h = await connectProxy(
    ['--config', JSON.stringify({ mcpServers: servers, ...top }), '--no-watchdog', ...extra],
    caps,
  );
  handles.push(h);
  return h;
}

function text(res: unknown): string {
  return ((res as { content: { text: string }[] }).content[0] ?? { text: '' }).text;
}

describe('stdio aggregation', () => {
  it('merges tools, prompts and resources of several servers and routes calls', async () => {
    const { client } = await proxy({
      a: fixtureEntry('a'),
      b: fixtureEntry('b'),
      everything: { command: process.execPath, args: [EVERYTHING] },
    });
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('a__echo');
    expect(tools).toContain('b__echo'); // the same tool name on two servers does not collide
    expect(tools).toContain('everything__get-sum');
    expect(text(await client.callTool({ name: 'a__whoami', arguments: {} }))).toContain('"name":"a"');
    expect(text(await client.callTool({ name: 'b__echo', arguments: { text: 'héllo 漢字' } }))).toBe('héllo 漢字');
    const sum = await client.callTool({ name: 'everything__get-sum', arguments: { a: 2, b: 3 } });
    expect(text(sum)).toContain('5');

    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toEqual(expect.arrayContaining(['a__greet', 'b__greet', 'everything__simple-prompt']));
    const greet = await client.getPrompt({ name: 'b__greet', arguments: { who: 'x' } });
    expect(JSON.stringify(greet.messages)).toContain('hello x from b');

    // Resource URIs stay as they are and route to their owner (exact and by template).
    const resources = (await client.listResources()).resources.map((r) => r.uri);
    expect(resources).toContain('fixture://info');
    const templated = await client.readResource({ uri: 'demo://resource/dynamic/text/7' });
    expect(JSON.stringify(templated.contents)).toContain('7');

    // Completion routed by prompt name.
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'everything__completable-prompt' },
      argument: { name: 'department', value: 'E' },
    });
    expect(completion.completion.values.length).toBeGreaterThan(0);
  });

  it('answers an unknown tool with an error naming it, and keeps serving', async () => {
    const { client } = await proxy({ a: fixtureEntry('a') });
    await expect(client.callTool({ name: 'a__nope', arguments: {} })).rejects.toThrow(/a__nope/);
    await expect(client.callTool({ name: 'zz', arguments: {} })).rejects.toThrow(/Unknown tool: zz/);
    expect(text(await client.callTool({ name: 'a__echo', arguments: { text: 'ok' } }))).toBe('ok');
  });

  it('keeps original names where they do not collide when asked', async () => {
    const { client } = await proxy(
      { a: fixtureEntry('a', ['--tools', 'echo,whoami']), b: fixtureEntry('b', ['--tools', 'echo,blob']) },
      [],
      {},
      { toolNaming: 'original' },
    );
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(['a__echo', 'b__echo', 'blob', 'whoami']);
    expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toContain('"name":"a"');
  });

  it('applies allow/deny filters to listing and calling', async () => {
    const { client } = await proxy({ a: { ...fixtureEntry('a'), tools: { deny: ['d*', 'slow'] } } }, [
      '--deny-tools',
      'blob',
    ]);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('a__echo');
    expect(tools).not.toContain('a__die');
    expect(tools).not.toContain('a__slow');
    expect(tools).not.toContain('a__blob');
    const refused = await client.callTool({ name: 'a__die', arguments: {} });
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]!.text).toMatch(/not allowed/);
  });

  it('passes progress through with the caller token, and cancellation reaches the upstream', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const state = `${dir.path}/state.jsonl`;
    const { client } = await proxy({ a: fixtureEntry('a', [], state) });
    const progress = recordProgress(client);
    const res = await client.callTool({
      name: 'a__slow',
      arguments: { ms: 200, steps: 4 },
      _meta: { progressToken: 'caller-token' },
    });
    expect(text(res)).toBe('slept 200');
    expect(await progress.steps('caller-token', 4)).toEqual([1, 2, 3, 4]);

    const ctrl = new AbortController();
    const call = client.callTool({ name: 'a__slow', arguments: { ms: 5000, steps: 2 } }, undefined, {
      signal: ctrl.signal,
    });
    // The second slow call this server saw (the first was the progress one above).
    await waitFor(
      () => readState(state).filter((e) => e.event === 'slow-started').length === 2,
      10_000,
      'the call upstream',
    );
    ctrl.abort('user stop');
    await expect(call).rejects.toThrow();
    await waitFor(
      () => readState(state).some((e) => e.event === 'cancelled'),
      20_000,
      'upstream to see the cancellation',
    );
  });

  it('forwards sampling from an upstream to the client and the answer back', async () => {
    const { client } = await proxy({ a: fixtureEntry('a') }, [], { sampling: {} });
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
      model: 'test-model',
      role: 'assistant',
      content: { type: 'text', text: `echo:${(req.params.messages[0].content as { text: string }).text}` },
    }));
    const res = await client.callTool({ name: 'a__sample', arguments: { prompt: 'hi' } });
    expect(text(res)).toBe('sampled: echo:hi');
  });

  it('lets a client that arrives after the servers are up give them its roots', async () => {
    // Raw JSON lines, so the client can initialise after the upstream has finished its own
    // handshake (and asked for roots while no client could answer).
    const child = spawn(
      process.execPath,
      [
        CLI,
        '--config',
        JSON.stringify({
          clientCapabilities: { roots: true },
          mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
        }),
        '--no-watchdog',
      ],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    cleanupChild = child;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const messages: Record<string, unknown>[] = [];
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const m = JSON.parse(buf.slice(0, i)) as Record<string, unknown>;
        buf = buf.slice(i + 1);
        messages.push(m);
        if (m.method === 'roots/list')
          send({
            jsonrpc: '2.0',
            id: m.id,
            result: { roots: [{ uri: 'file:///tmp/qiming-root', name: 'qiming-root' }] },
          });
      }
    });
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    const reply = (id: number) =>
      waitFor(() => messages.find((m) => m.id === id && !('method' in m)), 15_000, `reply ${id}`);
    // The upstream is up (its handshake done, with roots advertised) before the client initialises.
    await waitFor(
      () => /\[everything\] ready: \d+ tools/.test(stderr),
      15_000,
      () => `the upstream ready; stderr: ${stderr}`,
    );
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { roots: { listChanged: true } },
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    await reply(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const roots = await waitFor(
      async () => {
        const id = 100 + messages.length;
        send({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'everything__get-roots-list', arguments: {} },
        });
        const r = JSON.stringify(await reply(id));
        return r.includes('qiming-root') ? r : undefined;
      },
      15_000,
      'the server to list the client roots',
    );
    expect(roots).toContain('file:///tmp/qiming-root');
    expect(messages.some((m) => m.method === 'roots/list')).toBe(true);
  });

  it('waits for a slow server on the first list, and a later server arrives with list_changed', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const gate = join(dir.path, 'late-start');
    const { client } = await proxy(
      {
        fast: fixtureEntry('fast'),
        slow: fixtureEntry('slow', ['--start-delay', '1000']),
        // Held by its gate until the first list was answered, past the ready timeout.
        late: { command: process.execPath, args: [join(FIXTURES, 'slowStartServer.mjs'), '--gate', gate] },
      },
      // Room for the slow one's 1 s and a start-up a loaded machine stretches to seconds.
      ['--ready-timeout', '10000'],
    );
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    const first = (await client.listTools()).tools.map((t) => t.name);
    expect(first).toContain('fast__echo');
    expect(first).toContain('slow__echo'); // waited for it
    expect(first).not.toContain('late__echo'); // past the ready timeout
    writeFileSync(gate, '');
    await waitFor(() => changed > 0, 20_000, 'list_changed for the late server');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('late__echo');
  }, 45_000);

  it('leaves a failing server out and keeps the others working', async () => {
    const h = await proxy({ good: fixtureEntry('good'), bad: { command: 'definitely-not-a-command-xyz' } });
    const tools = (await h.client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('good__echo');
    expect(tools.some((t) => t.startsWith('bad__'))).toBe(false);
    expect(h.stderr.join('\n')).toMatch(/bad.*not found/);
    expect(text(await h.client.callTool({ name: 'good__echo', arguments: { text: 'still here' } }))).toBe('still here');
  });

  it('fails a call quickly when its upstream dies mid-call, and the server comes back', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const state = `${dir.path}/state.jsonl`;
    const { client } = await proxy({ a: fixtureEntry('a', [], state), b: fixtureEntry('b') });
    const firstPid = JSON.parse(text(await client.callTool({ name: 'a__whoami', arguments: {} }))).pid as number;
    const started = Date.now();
    await expect(client.callTool({ name: 'a__die', arguments: {} })).rejects.toThrow(/exited with code 3/);
    // At the exit, not at the call's timeout (60 s): well under it even on a loaded machine.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(text(await client.callTool({ name: 'b__echo', arguments: { text: 'b ok' } }))).toBe('b ok');
    expect(await waitNoProcess(firstPid, 2000)).toBe(true);
    // Supervision restarts it (backoff 1 s) and its tools return.
    const who = await waitFor(
      async () => {
        try {
          return text(await client.callTool({ name: 'a__whoami', arguments: {} }));
        } catch {
          return undefined;
        }
      },
      10_000,
      'server a to restart',
    );
    expect(JSON.parse(who).pid).not.toBe(firstPid);
  });

  it('returns a 10 MiB tool result intact with maxResultBytes off', async () => {
    const { client } = await proxy({ a: fixtureEntry('a') }, [], {}, { maxResultBytes: 'off' });
    // The SDK's own stdio client reads at most 10 MiB per message, envelope included.
    const size = 10 * 1024 * 1024 - 1024;
    // About 4 s of CPU in the SDK client alone (it copies and scans its whole buffer per
    // chunk), more in the server and the proxy: minutes on a loaded machine.
    const res = await client.callTool({ name: 'a__blob', arguments: { bytes: size } }, undefined, { timeout: 230_000 });
    expect(text(res).length).toBe(size);
    expect(text(await client.callTool({ name: 'a__echo', arguments: { text: 'after' } }))).toBe('after');
  }, 240_000);

  it('forwards list_changed from an upstream with the new tool routed', async () => {
    const { client } = await proxy({ a: fixtureEntry('a') });
    await client.listTools();
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    await client.callTool({ name: 'a__add_tool', arguments: { id: 'fresh' } });
    await waitFor(() => changed > 0, 5000, 'list_changed');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('a__fresh');
    expect(text(await client.callTool({ name: 'a__fresh', arguments: {} }))).toBe('fresh');
  });
});
