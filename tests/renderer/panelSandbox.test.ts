// The server card's sandbox line in real Chromium against a real bridge: a sandboxed server's
// card says what it may read, write and reach, its engine and private HOME; an unsandboxed
// server's card has no such line. The Edit form sets an entry's sandbox: mcp.json carries what
// was chosen and the card says it; a path the config refuses is shown as the config's error.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

  it('the Edit form sets the sandbox: mcp.json carries it, the card says it, a bad path is refused', async () => {
    const file = join(u.root, 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { probe: probeEntry() } }, null, 2));
    const entry = () =>
      (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers
        .probe;
    const b = await startBridge({ config: file, env: u.env });
    await b.waitServer('probe', (s) => s.state === 'ready', 30_000, 'the probe ready');
    chrome = await launchPanelBrowser();
    const { page } = await chrome.newPage({ viewport: { width: 900, height: 1300 }, colorScheme: 'light' });
    await page.goto(`${b.url}/#token=${b.bearer}`);
    const card = page.getByRole('region', { name: 'probe', exact: true });
    const line = card.locator('.sandbox-line');
    const edit = async () => {
      await card.getByRole('button', { name: 'Edit' }).click();
      return page.getByRole('dialog', { name: 'Edit probe' });
    };

    let dialog = await edit();
    await dialog.getByLabel('Run in a sandbox').selectOption('on');
    await dialog.getByLabel('Read paths').fill('relative/notes');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => dialog.locator('.form-error').allTextContents())
      .toContain(
        'server "probe": sandbox.filesystem.read[0] ("relative/notes") must be an absolute path or start with ~',
      );
    expect(entry().sandbox).toBeUndefined();

    await dialog.getByLabel('Read paths').fill(u.outside);
    await dialog.getByLabel('Write paths').fill(u.project);
    await dialog.getByLabel('Network').selectOption('allow');
    await dialog.getByLabel('Allowed hosts').fill('api.example.com\n*.example.org:8443');
    await page.screenshot({ path: join(u.root, 'sandbox-form.png') });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(entry().sandbox).toEqual({
      filesystem: { read: [u.outside], write: [u.project] },
      network: { allow: ['api.example.com', '*.example.org:8443'] },
    });
    await expect
      .poll(() => line.textContent(), { timeout: 30_000 })
      .toContain(`files: read ${u.outside}; write ${u.project}; network: only api.example.com, *.example.org:8443`);

    // The form opens with the entry's sandbox; Off writes false and the card's line goes.
    dialog = await edit();
    expect(await dialog.getByLabel('Write paths').inputValue()).toBe(u.project);
    await dialog.getByLabel('Run in a sandbox').selectOption('off');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(entry().sandbox).toBe(false);
    await expect.poll(() => line.isHidden(), { timeout: 30_000 }).toBe(true);
  }, 90_000);
});
