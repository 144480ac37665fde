// A changed MCP Apps view in the panel, in real Chromium against real bridges: a view first
// shown by one bridge is pinned; after a restart whose server gives another view, "Open app"
// shows that the view changed (its URI, the pinned and the new hash) with "Accept new view"
// instead of rendering it; accepting shows the new view, and the next bridge shows it at once.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cleanupBridges, startBridge, type BridgeProcess } from '../helpers/bridgeProcess.js';
import { tempDir } from '../helpers/proxyCli.js';
import { FIXTURES } from '../helpers/paths.js';
import { launchPanelBrowser, type PanelBrowser } from '../helpers/panelBrowser.js';

const SERVER = join(FIXTURES, 'appView', 'appViewServer.mjs');
let chrome: PanelBrowser | undefined;
const dirs: { remove: () => void }[] = [];

afterEach(async () => {
  await cleanupBridges();
});
afterAll(async () => {
  await chrome?.close();
  for (const d of dirs.splice(0)) d.remove();
}, 40_000);

const html = (title: string) => `<!doctype html><html><body><h1>${title}</h1></body></html>`;

/** A bridge over the note server whose view is the file `view`, pinning into `pins`. */
function bridge(view: string, pins: string): Promise<BridgeProcess> {
  return startBridge({
    config: { mcpServers: { n: { command: process.execPath, args: [SERVER, '--view', view] } } },
    env: { QIMING_PINS_DIR: pins, QIMING_PINNING: 'block' },
  });
}

async function agentCall(b: BridgeProcess): Promise<void> {
  const agent = new Client({ name: 'drift-agent', version: '1.0.0' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${b.url}/mcp`), { requestInit: { headers: b.auth } }));
  await agent.callTool({ name: 'n__show_note', arguments: { text: 'hi' } });
  await agent.close();
}

/** The panel of `b`, its Activity view's latest call of the tool with a view selected, "Open app" clicked. */
async function openApp(b: BridgeProcess) {
  chrome ??= await launchPanelBrowser();
  const panel = await chrome.newPage({ viewport: { width: 1300, height: 1000 } });
  const page = panel.page;
  await page.goto(`${b.url}/#token=${b.bearer}`);
  await page.getByRole('button', { name: 'Activity', exact: true }).click();
  const activity = page.getByRole('dialog', { name: 'Activity' });
  await activity.getByRole('table', { name: 'Calls' }).locator('tbody tr', { hasText: 'n__show_note' }).first().click();
  await activity.getByRole('button', { name: 'Open app' }).click();
  const view = page.frameLocator('iframe[title="App: n show_note"]').frameLocator('iframe');
  return { panel, page, activity, view };
}

describe('a changed view in the panel', () => {
  it('shows what changed and "Accept new view", which accepts it and then shows it', async () => {
    const dir = tempDir('qiming-panel-drift-');
    dirs.push(dir);
    const view = join(dir.path, 'view.html');
    const pins = join(dir.path, 'pins');
    writeFileSync(view, html('First view'));

    const first = await bridge(view, pins);
    await agentCall(first);
    const shown = await openApp(first);
    await expect.poll(() => shown.view.locator('h1').textContent(), { timeout: 15_000 }).toBe('First view');
    expect(shown.panel.errors).toEqual([]);
    await shown.panel.context.close();
    await cleanupBridges();

    writeFileSync(view, html('Changed view'));
    const second = await bridge(view, pins);
    await agentCall(second);
    const drifted = await openApp(second);
    const notice = drifted.activity.getByRole('region', { name: 'Changed view of n' });
    await notice.waitFor({ timeout: 15_000 });
    await expect.poll(() => notice.getByRole('heading').textContent()).toBe('View ui://notes/view.html of n changed');
    expect(await notice.textContent()).toMatch(/Pinned [0-9a-f]{12}…, now [0-9a-f]{12}…/);
    expect(await drifted.page.locator('iframe[title="App: n show_note"]').count()).toBe(0);
    await notice.getByRole('button', { name: 'Accept new view' }).click();
    await expect.poll(() => drifted.view.locator('h1').textContent(), { timeout: 15_000 }).toBe('Changed view');
    await expect.poll(() => notice.count()).toBe(0);
    // The 409 of the drifted view is the only console line.
    expect(drifted.panel.errors.filter((e) => !/409/.test(e))).toEqual([]);
    await drifted.panel.context.close();
    await cleanupBridges();

    const third = await bridge(view, pins);
    await agentCall(third);
    const again = await openApp(third);
    await expect.poll(() => again.view.locator('h1').textContent(), { timeout: 15_000 }).toBe('Changed view');
    await again.panel.context.close();
  }, 120_000);
});
