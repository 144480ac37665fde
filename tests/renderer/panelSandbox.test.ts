// The server card's sandbox line in real Chromium against a real bridge: a sandboxed server's
// card says what it may read, write and reach, its engine and private HOME; an unsandboxed
// server's card has no such line.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupBridges, startBridge } from '../helpers/bridgeProcess.js';
import { launchPanelBrowser, type PanelBrowser } from '../helpers/panelBrowser.js';
import { probeEntry, userFolders } from '../helpers/sandboxKit.js';

const u = userFolders('panel-sandbox-');
let chrome: PanelBrowser | undefined;
afterEach(async () => {
  await chrome?.close();
  chrome = undefined;
  await cleanupBridges();
}, 40_000);
afterAll(() => u.remove());

describe.skipIf(process.platform !== 'linux')('the card of a sandboxed server', () => {
  it('says what its sandbox allows; a server without one says nothing of it', async () => {
    const b = await startBridge({
      config: {
        mcpServers: {
          boxed: probeEntry({ filesystem: { write: [u.project] }, network: { allow: ['api.example.com'] } }),
          free: probeEntry(),
        },
      },
      env: u.env,
    });
    await b.waitServer('boxed', (s) => s.state === 'ready', 30_000, 'the sandboxed server ready');
    chrome = await launchPanelBrowser();
    const { page } = await chrome.newPage({ viewport: { width: 900, height: 700 }, colorScheme: 'light' });
    await page.goto(`${b.url}/#token=${b.bearer}`);
    const line = page.locator('li.server[data-server-id="boxed"] .sandbox-line');
    await line.waitFor();
    expect(await line.textContent()).toBe(
      `Sandboxed (bubblewrap): files: write ${u.project}; network: only api.example.com; ` +
        'private HOME ~/.config/qiming-mcp-runtime/mcp/sandbox/boxed/home',
    );
    await page.locator('li.server[data-server-id="free"]').waitFor();
    expect(await page.locator('li.server[data-server-id="free"] .sandbox-line').isHidden()).toBe(true);
  }, 60_000);
});
