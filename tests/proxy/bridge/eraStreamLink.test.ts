// The ACP chain for 2026-07-28 clients: an agent's stdio
// proxy with `bridge` entries (stdio proxy -> stream link -> bridge -> server), a 2025 server
// (SDK v1 fixture) and a 2026-only server (SDK v2 fixture) behind the bridge, an SDK v2 client
// pinned to 2026-07-28 on the stdio proxy. It gets what it gets direct from each server
// (transparency style), list changes on `subscriptions/listen`, and a 2026 server's
// input_required through both hops unchanged, its retry reaching the server. A 2025 client
// on the same chain keeps the 2025 translation (the bridge asks it).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, connectProxy, ensureBuilt, FIXTURE, fixtureEntry } from '../../helpers/proxyCli.js';
import { MODERN_FIXTURE, modernEntry } from '../../helpers/modernFixture.js';
import { cleanupBridges, startBridge, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { closeModernClients, envelope, RawLines, scenario, stdioClient } from '../../helpers/modernClient.js';
import { waitFor } from '../../helpers/waitFor.js';
import { text } from '../../helpers/toolText.js';

const node = process.execPath;
const closers: (() => Promise<void>)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  await closeModernClients();
  await cleanupBridges();
});

// What the bridge declares to the 2026 server for a 2025 client (a 2026 client's own envelope replaces it).
const SERVERS = { m: modernEntry('m', { clientCapabilities: { elicitation: true } }), old: fixtureEntry('old') };

async function bridge(): Promise<BridgeProcess> {
  return startBridge({ config: { mcpServers: SERVERS } });
}

/** The agent's stdio proxy config: one `bridge` entry per server of `b`. */
function chainArgs(b: BridgeProcess, extra: Record<string, unknown> = {}): string[] {
  const link = (id: string) => ({ type: 'bridge', url: `${b.url}/mcp/${id}`, headers: b.auth, ...extra });
  return [CLI, '--config', JSON.stringify({ mcpServers: { m: link('m'), old: link('old') } }), '--no-watchdog'];
}

/** Answers the fixture's elicitation, sampling and roots input requests. */
function answerInput(client: Client, asked: string[]): void {
  client.setRequestHandler('elicitation/create', async (r) => {
    asked.push(String((r.params as { message: string }).message));
    return { action: 'accept', content: { ok: true } };
  });
  client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    model: 'm',
    content: { type: 'text', text: 'forty-two' },
  }));
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
}

const INPUT_CAPS = { elicitation: {}, sampling: {}, roots: {} };

describe('the ACP chain serves a 2026-07-28 client', () => {
  it('with every tool, resource and prompt of a 2025 and a 2026 server, as direct, and the discover of the stdio aggregation', async () => {
    const wantModern = await scenario(await stdioClient(node, [MODERN_FIXTURE, '--name', 'm']), 'fixture://hello');
    const wantLegacy = await scenario(await stdioClient(node, [FIXTURE, '--name', 'old'], 'auto'), 'fixture://info');
    const aggregation = await stdioClient(node, [
      CLI,
      '--config',
      JSON.stringify({ mcpServers: SERVERS }),
      '--no-watchdog',
    ]);

    const b = await bridge();
    const chain = await stdioClient(node, chainArgs(b));
    expect(chain.getProtocolEra()).toBe('modern');
    expect(await scenario(chain, 'fixture://hello', 'm__')).toEqual(wantModern);
    expect(await scenario(chain, 'fixture://info', 'old__')).toEqual(wantLegacy);
    expect((await chain.callTool({ name: 'm__add', arguments: { a: 2, b: 3 } })).structuredContent).toEqual({ sum: 5 });
    const progress: number[] = [];
    const slow = await chain.callTool(
      { name: 'old__slow', arguments: { ms: 100, steps: 3 } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(text(slow)).toBe('slept 100');
    expect(progress).toEqual([1, 2, 3]);
    // discover: what the stdio aggregation of the same servers (no bridge) answers.
    const d = chain.getDiscoverResult()!;
    expect(d).toEqual(aggregation.getDiscoverResult());
    expect(d.instructions).toContain('## m\nm: echo and add things.');
    expect(Object.keys(d.capabilities).sort()).toEqual(['logging', 'prompts', 'resources', 'tools']);
  });

  it("relays both servers' list changes on subscriptions/listen", async () => {
    const b = await bridge();
    const chain = await stdioClient(node, chainArgs(b));
    let changes = 0;
    chain.setNotificationHandler('notifications/tools/list_changed', () => void changes++);
    const sub = await chain.listen({ toolsListChanged: true });
    expect(sub.honoredFilter).toEqual({ toolsListChanged: true });
    expect(text(await chain.callTool({ name: 'm__add_tool', arguments: { id: 'later' } }))).toBe('added later');
    await waitFor(() => changes >= 1, 10_000, 'the 2026 server list change');
    expect(text(await chain.callTool({ name: 'old__add_tool', arguments: { id: 'later' } }))).toBe('added later');
    await waitFor(() => changes >= 2, 10_000, 'the 2025 server list change');
    const names = async () => (await chain.listTools()).tools.map((t) => t.name);
    await waitFor(async () => (await names()).includes('old__later'), 10_000, 'old__later in the list');
    expect(await names()).toEqual(expect.arrayContaining(['m__later', 'old__later']));
    expect(text(await chain.callTool({ name: 'm__later', arguments: {} }))).toBe('later');
    await sub.close();
  });

  it("gets a 2026 server's input_required through both hops and its retries reach the server (SDK v2 client)", async () => {
    const b = await bridge();
    const chain = await stdioClient(node, chainArgs(b), { pin: '2026-07-28' }, INPUT_CAPS);
    const asked: string[] = [];
    answerInput(chain, asked);
    expect(text(await chain.callTool({ name: 'm__confirm', arguments: { what: 'go' } }))).toBe(
      'go: first=true second=true',
    );
    expect(asked).toEqual(['Really go?', 'Sure about go?']);
    expect(text(await chain.callTool({ name: 'm__sample', arguments: { prompt: 'q' } }))).toBe('model said: forty-two');
    expect(text(await chain.callTool({ name: 'm__roots', arguments: {} }))).toBe('file:///work');
  });

  it("gets a 2025 server's mid-call request as the stdio proxy's input_required, when the link declares the capability", async () => {
    const b = await bridge();
    // The bridge routes a server's request to the link only for what the link declared (as for a 2025 client);
    // the stdio proxy then holds the call (heldCall.ts) and asks its 2026 client in input_required.
    const chain = await stdioClient(
      node,
      chainArgs(b, { clientCapabilities: { sampling: true } }),
      { pin: '2026-07-28' },
      INPUT_CAPS,
    );
    answerInput(chain, []);
    expect(text(await chain.callTool({ name: 'old__sample', arguments: { prompt: 'q' } }))).toBe('sampled: forty-two');
    // The 2026 server behind the same link still answers input_required itself.
    expect(text(await chain.callTool({ name: 'm__sample', arguments: { prompt: 'q' } }))).toBe('model said: forty-two');
  });

  it('passes each input_required round and the cache hints unchanged, as the server sent them (raw JSON-RPC, chain beside direct)', async () => {
    const b = await bridge();
    const rounds = async (raw: RawLines, name: string) => {
      const meta = envelope({ elicitation: {} });
      await raw.request('server/discover', { _meta: meta });
      const call = (extra: Record<string, unknown>) =>
        raw.request('tools/call', { name, arguments: { what: 'go' }, _meta: meta, ...extra });
      const first = await call({});
      const second = await call({
        inputResponses: { first: { action: 'accept', content: { ok: true } } },
        requestState: first.result?.requestState,
      });
      const last = await call({
        inputResponses: { second: { action: 'accept', content: { ok: true } } },
        requestState: second.result?.requestState,
      });
      // The server's own cache hints on a read (ttlMs 60000, public) pass through too.
      const read = await raw.request('resources/read', { uri: 'fixture://cached', _meta: meta });
      return [first.result, second.result, last.result, read.result] as Record<string, unknown>[];
    };
    const direct = await rounds(new RawLines(node, [MODERN_FIXTURE, '--name', 'm']), 'confirm');
    const chained = await rounds(new RawLines(node, chainArgs(b)), 'm__confirm');
    expect(direct[0]).toMatchObject({ resultType: 'input_required', requestState: 'round-1' });
    expect(direct[1]).toMatchObject({ resultType: 'input_required', requestState: 'round-2:true' });
    expect(chained).toEqual(direct);
    expect(text(chained[2])).toBe('go: first=true second=true');
    expect(chained[3]).toMatchObject({ ttlMs: 60_000, cacheScope: 'public', resultType: 'complete' });
  });

  it('a 2025 client on the same chain is still asked by the bridge, as 2025 server-to-client requests', async () => {
    const b = await bridge();
    const h = await connectProxy(chainArgs(b, { clientCapabilities: { elicitation: true } }).slice(1), {
      elicitation: {},
    });
    closers.push(() => h.close());
    const asked: string[] = [];
    h.client.setRequestHandler(ElicitRequestSchema, async (r) => {
      asked.push(r.params.message);
      return { action: 'accept', content: { ok: true } };
    });
    const res = await h.client.callTool({ name: 'm__confirm', arguments: { what: 'go' } });
    expect(text(res)).toBe('go: first=true second=true');
    expect(res).not.toHaveProperty('resultType');
    expect(asked).toEqual(['Really go?', 'Sure about go?']);
  });
});
