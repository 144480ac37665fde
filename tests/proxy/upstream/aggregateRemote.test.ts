// Remote upstreams in stdio aggregation: streamable HTTP and SSE, declared or probed.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectProxy, ensureBuilt, fixtureEntry, startHttpFixture, type ProxyHandle } from '../../helpers/proxyCli.js';
import { recordProgress } from '../../helpers/progressRecorder.js';

const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function text(res: unknown): string {
  return ((res as { content: { text: string }[] }).content[0] ?? { text: '' }).text;
}

describe('aggregation of remote servers', () => {
  it('merges stdio, streamable HTTP and SSE servers, probing those without a type', async () => {
    const http = await startHttpFixture('http', { name: 'remote-http' });
    cleanups.push(http.stop);
    const sse = await startHttpFixture('sse', { name: 'remote-sse' });
    cleanups.push(sse.stop);
    const sse2 = await startHttpFixture('sse', { name: 'remote-sse-typed' });
    cleanups.push(sse2.stop);
    const config = {
      mcpServers: {
        local: fixtureEntry('local'),
        h: { url: http.url },
        s: { url: sse.url },
        t: { url: sse2.url, transport: 'sse' },
      },
    };
    const h: ProxyHandle = await connectProxy(['--config', JSON.stringify(config), '--no-watchdog']);
    cleanups.push(() => h.close());
    const tools = (await h.client.listTools()).tools.map((t) => t.name);
    for (const id of ['local', 'h', 's', 't']) expect(tools).toContain(`${id}__echo`);
    for (const [id, name] of [
      ['h', 'remote-http'],
      ['s', 'remote-sse'],
      ['t', 'remote-sse-typed'],
    ]) {
      expect(JSON.parse(text(await h.client.callTool({ name: `${id}__whoami`, arguments: {} }))).name).toBe(name);
    }
    const progress = recordProgress(h.client);
    await h.client.callTool({ name: 's__slow', arguments: { ms: 90, steps: 3 }, _meta: { progressToken: 'p1' } });
    expect(await progress.steps('p1', 3)).toEqual([1, 2, 3]);
  });
});
