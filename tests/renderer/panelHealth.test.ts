// The server card's "Calls (5 min)" line in real Chromium against a real bridge: calls made
// over /mcp reach the card through /events (the health figures move at most every 2 s); a
// timeout and a tool's own failure (`isError: true`) are its errors.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ROOT, cleanupBridges, startBridge, tempDir, waitFor } from '../helpers/bridgeProcess.js';
import { fixtureEntry } from '../helpers/proxyCli.js';
import { launchPanelBrowser, type PanelBrowser } from '../helpers/panelBrowser.js';

let chrome: PanelBrowser | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close().catch(() => undefined);
  client = undefined;
  await chrome?.close();
  chrome = undefined;
  await cleanupBridges();
}, 40_000);

describe('the card of a server that was called', () => {
  it('shows its calls, errors and latency over the last minutes', async () => {
    const b = await startBridge({
      config: { mcpServers: { alpha: { ...fixtureEntry('alpha'), toolTimeouts: { slow: 300 } } } },
    });
    chrome = await launchPanelBrowser();
    const { page } = await chrome.newPage({ viewport: { width: 900, height: 500 }, colorScheme: 'light' });
    await page.goto(`${b.url}/#token=${b.bearer}`);
    const calls = page
      .locator('li.server[data-server-id="alpha"] .fact', { has: page.locator('dt', { hasText: 'Calls (5 min)' }) })
      .locator('dd');
    await calls.waitFor();
    expect(await calls.textContent()).toBe('\u2014');

    client = new Client({ name: 'panel-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${b.url}/mcp`), { requestInit: { headers: b.auth } }),
    );
    for (const text of ['a', 'b', 'c']) await client.callTool({ name: 'alpha__echo', arguments: { text } });
    await expect(client.callTool({ name: 'alpha__slow', arguments: { ms: 60_000 } })).rejects.toThrow(/timed out/);
    // Without its `text` the tool fails: its server answers a result with `isError: true`.
    expect((await client.callTool({ name: 'alpha__echo', arguments: {} })).isError).toBe(true);

    const shown = await waitFor(
      async () => {
        const t = (await calls.textContent()) ?? '';
        return t.startsWith('5 ') ? t : undefined;
      },
      15_000,
      'the card to show 5 calls',
    );
    expect(shown).toMatch(/^5 · 2 errors · p50 \d+ ms, p95 \d+(\.\d)? ?m?s$/);
    const shot =
      process.env.UPDATE_SCREENSHOTS === '1'
        ? join(ROOT, 'docs', 'screenshots', 'panel-health.png')
        : join(tempDir('panel-health-'), 'card.png');
    await page.locator('li.server[data-server-id="alpha"]').screenshot({ path: shot });
  });
});
