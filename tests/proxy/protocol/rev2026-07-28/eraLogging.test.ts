// `ping`, `logging/setLevel` and log messages across eras: a 2025 client's
// `ping` and `logging/setLevel` for a 2026 server are answered by the proxy, and the level
// is sent as the per-request `_meta` log level, so the server's logs reach the client as
// 2025 `notifications/message`; a 2026 client's per-request log level selects what a 2025
// server's logs it gets (on that request only), and no `logging/setLevel` goes to the shared
// 2025 server (see protocol/rev2026-07-28/logLevels.ts for why).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectProxy, ensureBuilt, waitFor } from '../../../helpers/proxyCli.js';
import { modernEntry, startModernHttp } from '../../../helpers/modernFixture.js';
import { closeModernClients, proxyArgs, stdioClient } from '../../../helpers/modernClient.js';
import { FIXTURES } from '../../../helpers/paths.js';
import { text } from '../../../helpers/toolText.js';

const SUBS_2025 = { command: process.execPath, args: [join(FIXTURES, 'subscriptions2025Server.mjs')] };
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await closeModernClients();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * How long a test watches for a log message that must not come. The server sends a call's log
 * messages before its answer, in order, so a wrongly forwarded one is here long before this
 * once the answer came; a later call's exact list would show it too.
 */
const NO_MORE_LOGS_MS = 200;
const modernClient = (servers: Record<string, unknown>) => stdioClient(process.execPath, proxyArgs(servers));

describe('a 2025 client of a 2026 server', () => {
  for (const kind of ['stdio', 'http'] as const) {
    it(`gets ping and logging/setLevel answered by the proxy, and the server's logs at that level (${kind})`, async () => {
      let entry: Record<string, unknown> = modernEntry('m');
      if (kind === 'http') {
        const server = await startModernHttp('m');
        cleanups.push(server.stop);
        entry = { url: server.url, type: 'http' };
      }
      const h = await connectProxy(['--config', JSON.stringify({ mcpServers: { m: entry } }), '--no-watchdog']);
      cleanups.push(() => h.close());
      const logs: Record<string, unknown>[] = [];
      h.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
      await h.client.ping();
      expect(h.client.getServerCapabilities()?.logging).toEqual({});
      await h.client.setLoggingLevel('info');
      expect(text(await h.client.callTool({ name: 'm__log', arguments: { text: 'hi' } }))).toBe('logged');
      await waitFor(() => logs.length >= 2, 5000, 'the log messages');
      await sleep(NO_MORE_LOGS_MS);
      expect(logs.map((l) => l.data)).toEqual(['info: hi', 'warning: hi']);
      expect(logs[0]).toMatchObject({ level: 'info', logger: 'fixture' });
      await expect(h.client.setLoggingLevel('loud' as 'info')).rejects.toThrow(/unknown log level/);
    });
  }
});

describe('a 2026 client of a 2025 server', () => {
  it('gets the log messages of a request that asked for them, at or above its level, and nothing else', async () => {
    const client = await modernClient({ old: SUBS_2025, m: modernEntry('m') });
    expect(client.getDiscoverResult()!.capabilities.logging).toEqual({});
    const logs: Record<string, unknown>[] = [];
    client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params as Record<string, unknown>));

    await client.callTool({ name: 'old__log', arguments: { text: 'quiet' } });
    await sleep(NO_MORE_LOGS_MS);
    expect(logs).toEqual([]);

    await client.callTool({ name: 'old__log', arguments: { text: 'a' }, _meta: { [LOG_LEVEL]: 'info' } });
    await waitFor(() => logs.length >= 2, 5000, 'the log messages');
    await sleep(NO_MORE_LOGS_MS);
    expect(logs.map((l) => l.data)).toEqual(['info: a', 'warning: a']);

    // A 2026 server gets the level as sent.
    logs.length = 0;
    await client.callTool({ name: 'm__log', arguments: { text: 'b' }, _meta: { [LOG_LEVEL]: 'warning' } });
    await waitFor(() => logs.length >= 1, 5000, 'the 2026 server log message');
    await sleep(NO_MORE_LOGS_MS);
    expect(logs.map((l) => l.data)).toEqual(['warning: b']);

    // The shared 2025 server's level is left alone.
    const state = JSON.parse(text(await client.callTool({ name: 'old__state', arguments: {} }))) as {
      events: string[];
    };
    expect(state.events.filter((e) => e.startsWith('setLevel'))).toEqual([]);
    await expect(
      client.callTool({ name: 'old__log', arguments: { text: 'x' }, _meta: { [LOG_LEVEL]: 'loud' } }),
    ).rejects.toThrow(/log level/);
  });
});
