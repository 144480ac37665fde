// Convert mode end to end: a remote server (streamable HTTP or SSE, started by the test on
// 127.0.0.1) exposed over stdio by the built CLI, through the reconnecting wrapper.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  connectProxy,
  ensureBuilt,
  readState,
  startHttpFixture,
  tempDir,
  waitFor,
  type ProxyHandle,
} from '../../helpers/proxyCli.js';
import { recordProgress } from '../../helpers/progressRecorder.js';

const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function text(res: unknown): string {
  return ((res as { content: { text: string }[] }).content[0] ?? { text: '' }).text;
}

async function convert(args: string[], caps: Record<string, unknown> = {}): Promise<ProxyHandle> {
  const h = await connectProxy(['convert', ...args, '--no-watchdog'], caps);
  cleanups.push(() => h.close());
  return h;
}

describe.each(['http', 'sse'] as const)('convert over %s', (kind) => {
  it('is transparent: tools, progress, sampling, resources, prompts', async () => {
    const server = await startHttpFixture(kind, { name: `remote-${kind}` });
    cleanups.push(server.stop);
    const h = await convert([server.url, '--transport', kind], { sampling: {} });
    const tools = (await h.client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('echo'); // no prefix: one server, passed through
    expect(text(await h.client.callTool({ name: 'echo', arguments: { text: 'ünï' } }))).toBe('ünï');
    const progress = recordProgress(h.client);
    await h.client.callTool({ name: 'slow', arguments: { ms: 100, steps: 3 }, _meta: { progressToken: 'p1' } });
    expect(await progress.steps('p1', 3)).toEqual([1, 2, 3]);
    h.client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      model: 'm',
      role: 'assistant',
      content: { type: 'text', text: 'yes' },
    }));
    expect(text(await h.client.callTool({ name: 'sample', arguments: { prompt: 'q' } }))).toBe('sampled: yes');
    const res = await h.client.readResource({ uri: 'fixture://info' });
    expect(JSON.stringify(res.contents)).toContain(`info of remote-${kind}`);
    const prompt = await h.client.getPrompt({ name: 'greet', arguments: { who: 'z' } });
    expect(JSON.stringify(prompt.messages)).toContain('hello z');
  });

  it('detects the transport by itself (auto)', async () => {
    const server = await startHttpFixture(kind);
    cleanups.push(server.stop);
    const h = await convert([server.url]);
    expect(text(await h.client.callTool({ name: 'echo', arguments: { text: 'auto' } }))).toBe('auto');
  });

  it('reconnects after the server restarts on the same port, replaying initialize, delivering queued requests', async () => {
    const dir = tempDir();
    cleanups.push(dir.remove);
    const state = `${dir.path}/state.jsonl`;
    const first = await startHttpFixture(kind, { stateFile: state });
    cleanups.push(first.stop);
    const h = await convert([first.url, '--transport', kind, '--ping-interval', '200', '--ping-timeout', '1000']);
    expect(text(await h.client.callTool({ name: 'echo', arguments: { text: 'before' } }))).toBe('before');
    await first.stop();
    // Calls made while the server is down wait in the queue.
    const queued = [1, 2, 3].map((i) =>
      h.client.callTool({ name: 'echo', arguments: { text: `queued ${i}` } }, undefined, { timeout: 30_000 }),
    );
    // The wrapper noticed the server gone and tried it again in vain: the calls wait meanwhile.
    await waitFor(() => h.stderr.some((l) => /connect failed: .*; retrying in/.test(l)), 15_000, 'a failed reconnect');
    const second = await startHttpFixture(kind, { port: first.port, stateFile: state });
    cleanups.push(second.stop);
    const results = await Promise.all(queued);
    expect(results.map(text)).toEqual(['queued 1', 'queued 2', 'queued 3']);
    // The new server process was initialized by the replay.
    await waitFor(
      () => readState(state).some((e) => e.event === 'initialized' && e.pid === second.child.pid),
      5000,
      'initialize replayed',
    );
    const who = JSON.parse(text(await h.client.callTool({ name: 'whoami', arguments: {} })));
    expect(who.pid).toBe(second.child.pid);
  });
});

describe('convert', () => {
  it('returns a 10 MiB result intact', async () => {
    const server = await startHttpFixture('http');
    cleanups.push(server.stop);
    const h = await convert([server.url]);
    const size = 10 * 1024 * 1024 - 1024;
    // About 4 s of CPU in the SDK client alone (it copies and scans its whole buffer per
    // chunk), more in the server and the proxy: minutes on a loaded machine.
    const res = await h.client.callTool({ name: 'blob', arguments: { bytes: size } }, undefined, { timeout: 230_000 });
    expect(text(res).length).toBe(size);
  }, 240_000);

  it('applies --allow-tools and --deny-tools', async () => {
    const server = await startHttpFixture('http');
    cleanups.push(server.stop);
    const h = await convert([server.url, '--allow-tools', 'echo,whoami,blob', '--deny-tools', 'blob']);
    expect((await h.client.listTools()).tools.map((t) => t.name).sort()).toEqual(['echo', 'whoami']);
    // Refused as a tool result the model reads (hub/policyRefusal.ts).
    const refused = await h.client.callTool({ name: 'blob', arguments: { bytes: 1 } });
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]!.text).toMatch(
      /^Tool blob is not allowed by the proxy configuration: the tool filters of server ".*" hide "blob"/,
    );
  });

  it('picks one entry of a config with --name, with its headers', async () => {
    const server = await startHttpFixture('sse');
    cleanups.push(server.stop);
    const config = JSON.stringify({
      mcpServers: {
        other: { url: 'http://127.0.0.1:9/mcp' },
        mine: { url: server.url, type: 'sse', headers: { 'X-Test': '1' } },
      },
    });
    const h = await convert(['--config', config, '--name', 'mine']);
    expect(text(await h.client.callTool({ name: 'echo', arguments: { text: 'named' } }))).toBe('named');
  });
});
