// Resource subscriptions across eras: a 2026-07-28 client's
// `subscriptions/listen` with `resourceSubscriptions` on a 2025 server becomes
// `resources/subscribe` upstream (reference-counted), its updates reach the listen, and
// closing the listen unsubscribes; a 2025 client's `resources/subscribe` on a 2026 server
// becomes the server's `subscriptions/listen` (stdio and HTTP), the updates come back as 2025
// notifications, and unsubscribing ends it.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectProxy, ensureBuilt, tempDir, waitFor } from '../../../helpers/proxyCli.js';
import { modernEntry, startModernHttp } from '../../../helpers/modernFixture.js';
import { closeModernClients, proxyArgs, stdioClient } from '../../../helpers/modernClient.js';
import { FIXTURES } from '../../../helpers/paths.js';
import { cleanupBridges, startBridge } from '../../../helpers/bridgeProcess.js';
import { text } from '../../../helpers/toolText.js';

const SUBS_2025 = { command: process.execPath, args: [join(FIXTURES, 'subscriptions2025Server.mjs')] };
const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await closeModernClients();
  for (const c of cleanups.splice(0).reverse()) await c();
  await cleanupBridges();
});

const modernClient = (servers: Record<string, unknown>) => stdioClient(process.execPath, proxyArgs(servers));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * How long a test watches for an upstream unsubscribe or an update that must not come: the
 * proxy acts on a closed listen or an unsubscribe within a tick, and an update it forwards
 * follows the server's within a round trip, both well inside this on a loaded machine.
 */
const NOTHING_MORE_MS = 300;
/** Time for the listen that replaces the old one to reach the server (nothing to observe it by). */
const LISTEN_REPLACED_MS = 500;

describe('a 2026 client listening for resource updates of a 2025 server', () => {
  it('subscribes upstream once for two listens, gets the updates on each, and unsubscribes when the last one closes', async () => {
    const client = await modernClient({ old: SUBS_2025, m: modernEntry('m') });
    expect((client.getDiscoverResult()!.capabilities.resources as { subscribe?: boolean }).subscribe).toBe(true);
    const updates: unknown[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params));
    // One listen over both eras: a 2025 server's URI and a 2026 server's; an unknown one is not honoured.
    const a = await client.listen({ resourceSubscriptions: ['test://watched', 'test://unknown', 'fixture://hello'] });
    expect(a.honoredFilter.resourceSubscriptions).toEqual(['test://watched', 'fixture://hello']);
    const b = await client.listen({ resourceSubscriptions: ['test://watched'] });
    expect(b.honoredFilter.resourceSubscriptions).toEqual(['test://watched']);
    const state = async () =>
      JSON.parse(text(await client.callTool({ name: 'old__state', arguments: {} }))) as {
        subscribed: string[];
        events: string[];
      };
    expect((await state()).events).toEqual(['subscribe test://watched']);

    expect(text(await client.callTool({ name: 'old__touch', arguments: { uri: 'test://watched' } }))).toBe('sent');
    await waitFor(() => updates.length >= 2, 5000, 'the update on both listens');
    expect(updates[0]).toMatchObject({ uri: 'test://watched' });
    await client.callTool({ name: 'm__touch', arguments: {} });
    await waitFor(() => updates.length >= 3, 5000, "the 2026 server's update on listen a");
    expect(updates[2]).toMatchObject({ uri: 'fixture://hello' });

    await a.close();
    await sleep(NOTHING_MORE_MS);
    expect((await state()).subscribed).toEqual(['test://watched']);
    await b.close();
    await waitFor(async () => (await state()).subscribed.length === 0, 5000, 'the upstream unsubscribe');
    expect((await state()).events).toEqual(['subscribe test://watched', 'unsubscribe test://watched']);
  });
});

describe('a 2026 client listening through the bridge (stateless HTTP)', () => {
  it('gets the updates on the listen stream; closing the stream unsubscribes upstream', async () => {
    const b = await startBridge({ config: { mcpServers: { old: SUBS_2025 } } });
    const client = new Client(
      { name: 'modern-http', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    cleanups.push(() => client.close().catch(() => undefined));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(b.url + '/mcp/old'), { requestInit: { headers: b.auth } }),
    );
    const updates: unknown[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params));
    const sub = await client.listen({ resourceSubscriptions: ['test://other'] });
    expect(sub.honoredFilter.resourceSubscriptions).toEqual(['test://other']);
    expect(text(await client.callTool({ name: 'touch', arguments: { uri: 'test://other' } }))).toBe('sent');
    await waitFor(() => updates.length > 0, 5000, 'the update on the listen stream');
    expect(updates[0]).toMatchObject({ uri: 'test://other' });
    await sub.close();
    const state = async () =>
      JSON.parse(text(await client.callTool({ name: 'state', arguments: {} }))) as { events: string[] };
    await waitFor(
      async () => (await state()).events.includes('unsubscribe test://other'),
      5000,
      'the upstream unsubscribe',
    );
  });
});

describe('a 2025 client subscribing to resources of a 2026 server', () => {
  it('keeps its subscription when the server crashes and comes back (asked again on the new connection)', async () => {
    const b = await startBridge({ config: { mcpServers: { m: modernEntry('m') } } });
    const { client } = await b.client('/mcp/m');
    const updates: Record<string, unknown>[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params));
    await client.subscribeResource({ uri: 'fixture://hello' });
    const pid = (await b.server('m')).pid!;
    process.kill(pid, 'SIGKILL');
    await b.waitServer('m', (x) => x.state === 'ready' && x.pid !== pid, 15_000, 'restarted after the crash');
    // Touched until an update comes: once the renewed listen is acknowledged, one does.
    await waitFor(
      async () => updates.length > 0 || (await client.callTool({ name: 'touch', arguments: {} }), false),
      15_000,
      'the update after the restart',
      200,
    );
    expect(updates[0]).toEqual({ uri: 'fixture://hello' });
  });

  it('is refused at once by a 2026 server that does not declare resource subscriptions, and no listen asks it for them', async () => {
    const dir = tempDir();
    cleanups.push(dir.remove);
    const log = join(dir.path, 'requests.jsonl');
    // The entry's timeout would bound a wait for an acknowledgement this server never sends.
    const entry = {
      command: process.execPath,
      args: [join(FIXTURES, 'unsubscribableModernServer.mjs'), log],
      timeoutMs: 3000,
    };
    const b = await startBridge({ config: { mcpServers: { u: entry } } });
    const { client } = await b.client('/mcp/u');
    expect(client.getServerCapabilities()?.resources?.subscribe).toBeUndefined();
    const err = (await client.subscribeResource({ uri: 'test://plain' }).catch((e: unknown) => e)) as {
      code?: number;
      message?: string;
    };
    expect(err.code).toBe(-32601);
    expect(err.message).toMatch(/server "u" does not offer resource subscriptions/);
    expect((await client.readResource({ uri: 'test://plain' })).contents).toHaveLength(1);
    const seen = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { method: string; notifications?: Record<string, unknown> });
    expect(seen.filter((r) => r.method === 'subscriptions/listen' && r.notifications?.resourceSubscriptions)).toEqual(
      [],
    );
  });

  for (const kind of ['stdio', 'http'] as const) {
    it(`gets the updates as 2025 notifications until it unsubscribes (${kind})`, async () => {
      let entry: Record<string, unknown> = modernEntry('m');
      if (kind === 'http') {
        const server = await startModernHttp('m');
        cleanups.push(server.stop);
        entry = { url: server.url, type: 'http' };
      }
      const h = await connectProxy(['--config', JSON.stringify({ mcpServers: { m: entry } }), '--no-watchdog']);
      cleanups.push(() => h.close());
      expect(h.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const updates: Record<string, unknown>[] = [];
      h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params));
      await h.client.subscribeResource({ uri: 'fixture://hello' });
      await h.client.callTool({ name: 'm__touch', arguments: {} });
      await waitFor(() => updates.length > 0, 5000, 'the resource update');
      expect(updates[0]).toEqual({ uri: 'fixture://hello' });

      await h.client.unsubscribeResource({ uri: 'fixture://hello' });
      await sleep(LISTEN_REPLACED_MS);
      await h.client.callTool({ name: 'm__touch', arguments: {} });
      await sleep(NOTHING_MORE_MS);
      expect(updates).toHaveLength(1);
    });
  }
});
