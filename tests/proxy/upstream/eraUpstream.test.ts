// Upstream era: the proxy reaches a 2026-07-28-only server (SDK v2,
// tests/fixtures/modernServer.mjs) over stdio and streamable HTTP, probing or forced by the
// entry's `protocol`, and a 2025-11-25 client (SDK v1 Client) gets its tools, resources and
// prompts through the stdio aggregation, beside a 2025 server, as direct.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  connectProxy,
  ensureBuilt,
  fixtureEntry,
  startHttpFixture,
  waitFor,
  type ProxyHandle,
} from '../../helpers/proxyCli.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { MODERN_FIXTURE, modernEntry, startModernHttp } from '../../helpers/modernFixture.js';
import { waitNoProcess } from '../../helpers/processGone.js';
import { text } from '../../helpers/toolText.js';

const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function proxy(servers: Record<string, unknown>): Promise<ProxyHandle> {
  const h = await connectProxy(['--config', JSON.stringify({ mcpServers: servers }), '--no-watchdog']);
  cleanups.push(() => h.close());
  return h;
}

/** What a 2026 client sees talking to the fixture directly (SDK v2 Client, pinned to 2026-07-28). */
async function direct() {
  const client = new Client({ name: 'direct', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const transport = new StdioClientTransport({ command: process.execPath, args: [MODERN_FIXTURE, '--name', 'm'] });
  await client.connect(transport);
  const pid = transport.pid;
  try {
    return {
      tools: (await client.listTools()).tools,
      echo: await client.callTool({ name: 'echo', arguments: { text: 'hi' } }),
      add: await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
      read: await client.readResource({ uri: 'fixture://hello' }),
      prompt: await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } }),
    };
  } finally {
    await client.close();
    if (pid) await waitNoProcess(pid, 5000);
  }
}

/** The same scenario through the proxy, names prefixed by the entry id. */
async function through(h: ProxyHandle, id: string) {
  const prefix = id ? `${id}__` : '';
  const tools = (await h.client.listTools()).tools.filter((t) => t.name.startsWith(prefix));
  return {
    tools: tools.map((t) => ({ ...t, name: t.name.slice(prefix.length) })),
    echo: await h.client.callTool({ name: `${prefix}echo`, arguments: { text: 'hi' } }),
    add: await h.client.callTool({ name: `${prefix}add`, arguments: { a: 2, b: 3 } }),
    read: await h.client.readResource({ uri: 'fixture://hello' }),
    prompt: await h.client.getPrompt({ name: `${prefix}greet`, arguments: { who: 'Ada' } }),
  };
}

/** Fields only one era carries (resultType, cache hints, serverInfo in _meta) are not the point here. */
interface Scenario {
  tools: { name: string; description?: string; inputSchema: unknown; outputSchema?: unknown }[];
  echo: unknown;
  add: unknown;
  read: unknown;
  prompt: unknown;
}
function core(r: Scenario) {
  const strip = (o: unknown) => {
    const { resultType: _a, ttlMs: _b, cacheScope: _c, _meta: _d, ...rest } = o as Record<string, unknown>;
    return rest;
  };
  return {
    tools: r.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
    })),
    echo: strip(r.echo),
    add: strip(r.add),
    read: strip(r.read),
    prompt: strip(r.prompt),
  };
}

describe('a 2025-11-25 client reaches a 2026-07-28-only server through the proxy', () => {
  it('stdio, protocol auto (initialize refused, then server/discover), beside a 2025 server', async () => {
    const want = core(await direct());
    const h = await proxy({ m: modernEntry('m'), old: fixtureEntry('old') });
    const got = core(await through(h, 'm'));
    expect(got).toEqual(want);
    expect(text(got.echo)).toBe('echo: hi');
    expect((got.add as { structuredContent: unknown }).structuredContent).toEqual({ sum: 5 });
    // The 2025 server is still served as before.
    expect(text(await h.client.callTool({ name: 'old__echo', arguments: { text: 'x' } }))).toContain('x');
  });

  it('stdio, protocol "2026-07-28" forced (no initialize at all)', async () => {
    const h = await proxy({ m: modernEntry('m', { protocol: '2026-07-28' }) });
    expect(text(await h.client.callTool({ name: 'm__echo', arguments: { text: 'forced' } }))).toBe('echo: forced');
    expect((await h.client.readResource({ uri: 'fixture://hello' })).contents[0]).toMatchObject({
      text: 'hello from the 2026 fixture',
    });
  });

  it('streamable HTTP, protocol auto (server/discover probe) and forced', async () => {
    const want = core(await direct());
    const remote = await startModernHttp('m');
    cleanups.push(remote.stop);
    const h = await proxy({ m: { url: remote.url }, f: { url: remote.url, type: 'http', protocol: '2026-07-28' } });
    expect(core(await through(h, 'm'))).toEqual(want);
    expect(text(await h.client.callTool({ name: 'f__echo', arguments: { text: 'f' } }))).toBe('echo: f');
  });

  it('protocol "2025-11-25" forced on a 2026-only server fails with the server\'s refusal, clearly', async () => {
    const h = await proxy({ m: modernEntry('m', { protocol: '2025-11-25' }), old: fixtureEntry('old') });
    const tools = (await h.client.listTools()).tools.map((t) => t.name);
    expect(tools.some((t) => t.startsWith('m__'))).toBe(false);
    const res = await h.client.callTool({ name: 'm__echo', arguments: { text: 'x' } }).catch((e: Error) => e);
    expect(String(res instanceof Error ? res.message : text(res))).toMatch(
      /Unsupported protocol version|not ready|unknown tool/i,
    );
  });

  it('a bad protocol value fails that entry alone, with a clear reason naming the field', async () => {
    const h = await proxy({ m: modernEntry('m', { protocol: '2026' }), old: fixtureEntry('old') });
    const tools = (await h.client.listTools()).tools.map((t) => t.name);
    expect(tools.some((t) => t.startsWith('m__'))).toBe(false);
    expect(tools.some((t) => t.startsWith('old__'))).toBe(true);
    await waitFor(
      () => h.stderr.some((l) => /not started: server "m": protocol/.test(l)),
      10_000,
      'the reason in the log',
    );
  });
});

describe('convert reaches a 2026-07-28-only server', () => {
  it('serves it to a 2025 client as that one server (unprefixed, its instructions), input rounds included', async () => {
    const want = core(await direct());
    const remote = await startModernHttp('m');
    cleanups.push(remote.stop);
    const h = await connectProxy(['convert', remote.url, '--no-watchdog'], { elicitation: {} });
    cleanups.push(() => h.close());
    expect(h.client.getServerVersion()?.name).toBe('m');
    expect(h.client.getInstructions()).toBe('m: echo and add things.');
    expect(core(await through(h, ''))).toEqual(want);
    // No clientCapabilities for a --url convert: the server is told none and says so.
    const err = await h.client
      .callTool({ name: 'confirm', arguments: { what: 'x' } })
      .catch((e: { code?: number }) => e);
    expect((err as { code?: number }).code).toBe(-32021);
  });

  it("a config entry with clientCapabilities relays the server's input requests; a 2025 server still gets the pipe", async () => {
    const remote = await startModernHttp('m');
    cleanups.push(remote.stop);
    const old = await startHttpFixture('http', { name: 'old' });
    cleanups.push(old.stop);
    // No approval policy (the suite runs with pinning off): the 2025 entry is served by the plain pipe.
    const config = {
      approval: 'off',
      mcpServers: { m: { url: remote.url, clientCapabilities: { elicitation: true } }, old: { url: old.url } },
    };
    const h = await connectProxy(['convert', '--config', JSON.stringify(config), '--name', 'm', '--no-watchdog'], {
      elicitation: {},
    });
    cleanups.push(() => h.close());
    h.client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { ok: true } }));
    expect(text(await h.client.callTool({ name: 'confirm', arguments: { what: 'y' } }))).toBe(
      'y: first=true second=true',
    );
    const legacy = await connectProxy([
      'convert',
      '--config',
      JSON.stringify(config),
      '--name',
      'old',
      '--no-watchdog',
    ]);
    cleanups.push(() => legacy.close());
    expect(text(await legacy.client.callTool({ name: 'echo', arguments: { text: 'z' } }))).toContain('z');
    expect(legacy.client.getServerVersion()?.name).toBe('old');
    expect(legacy.stderr.join('\n')).not.toContain('one-server hub');
  });
});
