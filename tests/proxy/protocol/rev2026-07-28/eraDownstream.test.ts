// Downstream era (stdio aggregation): a 2026-07-28 client (SDK v2 Client,
// versionNegotiation auto and pinned) gets `server/discover` answered with the merged
// capabilities, instructions and server info, and is then served with per-request `_meta`
// and no `initialize`: tools, resources and prompts of a 2025 server and of a 2026 server.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, fixtureEntry } from '../../../helpers/proxyCli.js';
import { modernEntry } from '../../../helpers/modernFixture.js';
import { closeModernClients, proxyArgs, stdioClient, type Negotiation } from '../../../helpers/modernClient.js';
import { text } from '../../../helpers/toolText.js';

const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await closeModernClients();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const modernClient = (
  servers: Record<string, unknown>,
  mode: Negotiation,
  capabilities: Record<string, unknown> = {},
) => stdioClient(process.execPath, proxyArgs(servers), mode, capabilities);

describe('a 2026-07-28 client of the stdio aggregation', () => {
  it('negotiates the modern era by server/discover and gets merged capabilities and instructions', async () => {
    const client = await modernClient({ m: modernEntry('m'), old: fixtureEntry('old') }, 'auto');
    expect(client.getProtocolEra()).toBe('modern');
    const d = client.getDiscoverResult()!;
    expect(d.supportedVersions).toContain('2026-07-28');
    expect(Object.keys(d.capabilities).sort()).toEqual(expect.arrayContaining(['prompts', 'resources', 'tools']));
    expect(d.instructions).toContain('## m\nm: echo and add things.');
    expect((d._meta as Record<string, { name: string }>)['io.modelcontextprotocol/serverInfo']!.name).toBe(
      'qiming-mcp-stdio-proxy',
    );
  });

  it('calls the tools, reads the resources and gets the prompts of a 2025 and a 2026 server', async () => {
    const client = await modernClient({ m: modernEntry('m'), old: fixtureEntry('old') }, { pin: '2026-07-28' });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['m__echo', 'm__add', 'old__echo']));
    expect(text(await client.callTool({ name: 'm__echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
    expect(text(await client.callTool({ name: 'old__echo', arguments: { text: 'hi' } }))).toContain('hi');
    const add = await client.callTool({ name: 'm__add', arguments: { a: 1, b: 2 } });
    expect(add.structuredContent).toEqual({ sum: 3 });
    const read = await client.readResource({ uri: 'fixture://hello' });
    expect(read.contents[0]).toMatchObject({ text: 'hello from the 2026 fixture' });
    const prompt = await client.getPrompt({ name: 'm__greet', arguments: { who: 'Ada' } });
    expect(prompt.messages[0]!.content).toMatchObject({ text: 'Say hello to Ada' });
  });

  it('refuses a protocol version it does not serve with -32022 naming the ones it does', async () => {
    const client = await modernClient({ old: fixtureEntry('old') }, { pin: '2026-07-28' });
    const res = await client
      .request({
        method: 'server/discover',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } },
      } as never)
      .catch((e: { code?: number; data?: unknown }) => e);
    expect((res as { code?: number }).code).toBe(-32022);
  });

  it("gets a 2026 server's input_required itself and its retry (inputResponses, requestState) reaches the server", async () => {
    const client = await modernClient({ m: modernEntry('m') }, { pin: '2026-07-28' }, { elicitation: {} });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (r) => {
      asked.push(String((r.params as { message: string }).message));
      return { action: 'accept', content: { ok: true } };
    });
    expect(text(await client.callTool({ name: 'm__confirm', arguments: { what: 'go' } }))).toBe(
      'go: first=true second=true',
    );
    expect(asked).toEqual(['Really go?', 'Sure about go?']);
  });
});
