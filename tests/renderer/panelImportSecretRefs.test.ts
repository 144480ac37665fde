// "Paste a snippet" with a snippet that reads a stored secret it does not bring, in real
// Chromium against the real bridge (dist/proxy serving dist/renderer) on a real config file:
// the preview names the secret under the entry that reads it, with the server it is kept
// for; nothing can be added until the user ticks their yes, and then the entry is written.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { cleanupBridges, startBridge, tempDir, type BridgeProcess } from '../helpers/bridgeProcess.js';
import { launchPanelBrowser, nonNetworkErrors, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';

let bridge: BridgeProcess;
let chrome: PanelBrowser | undefined;
let panel: PanelPage;
let page: Page;
let file: string;

beforeAll(async () => {
  const dir = tempDir('panel-import-refs-');
  file = join(dir, 'mcp.json');
  const config = {
    mcpServers: {
      gh: { command: 'node', args: ['gh.js'], env: { GITHUB_TOKEN: '${secret:gh/env/GITHUB_TOKEN}' }, disabled: true },
    },
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  bridge = await startBridge({ config: undefined, args: ['--config-file', file] });
  chrome = await launchPanelBrowser();
  panel = await chrome.newPage({ viewport: { width: 1200, height: 900 } });
  page = panel.page;
  await page.goto(`${bridge.url}/#token=${bridge.bearer}`);
  await page.getByRole('button', { name: 'Paste a snippet' }).waitFor();
}, 90_000);

afterAll(async () => {
  expect(nonNetworkErrors(panel?.errors ?? [])).toEqual([]);
  await panel?.context.close();
  await chrome?.close();
  await cleanupBridges();
}, 40_000);

describe('Paste a snippet that reads a stored secret (real bridge, real Chromium)', () => {
  it('names the secret and whose it is, and adds nothing until the user says yes', async () => {
    const before = readFileSync(file, 'utf8');
    await page.getByRole('button', { name: 'Paste a snippet' }).click();
    const dialog = page.getByRole('dialog', { name: 'Paste a snippet' });
    const snippet = {
      mcpServers: {
        helper: { command: 'node', args: ['helper.js', '--token=${secret:gh/env/GITHUB_TOKEN}'], disabled: true },
      },
    };
    await dialog.getByLabel('Snippet', { exact: true }).fill(JSON.stringify(snippet, null, 2));
    await dialog.getByRole('button', { name: 'Preview' }).click();

    const item = dialog
      .getByRole('list', { name: 'Will be added' })
      .getByRole('listitem')
      .filter({ hasText: 'helper' });
    await item
      .getByText(
        'Reads the stored secret gh/env/GITHUB_TOKEN, kept for your server \u201cgh\u201d. The snippet does not bring this value.',
      )
      .waitFor();
    const add = dialog.getByRole('button', { name: 'Add 1 server' });
    const allow = dialog.getByLabel('Let them read this stored secret');
    expect(await allow.isChecked()).toBe(false);
    expect(await add.isDisabled()).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(before);

    await allow.check();
    expect(await add.isEnabled()).toBe(true);
    await add.click();
    await dialog.waitFor({ state: 'detached' });
    const written = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, { args?: string[] }> };
    expect(written.mcpServers.helper.args).toEqual(['helper.js', '--token=${secret:gh/env/GITHUB_TOKEN}']);
  });
});
