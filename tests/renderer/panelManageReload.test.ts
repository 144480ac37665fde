// The panel's changes applied by the bridge's own reload (`proxy --config F --watch` follows
// the file and restarts only what changed), in real Chromium against the real bridge with real
// servers: a server added through the form becomes ready; the Enabled switch stops the process
// and starts it again while the others keep their pids; a tool switched off disappears from an
// open MCP session's tools/list after list_changed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  cleanupBridges,
  EVERYTHING_SERVER,
  fixture,
  nodeEntry,
  startBridge,
  tempDir,
  type BridgeProcess,
} from '../helpers/bridgeProcess.js';
import { launchPanelBrowser, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';

let bridge: BridgeProcess;
let chrome: PanelBrowser | undefined;
let panel: PanelPage | undefined;
let page: Page;
let file: string;

const region = (id: string) => page.getByRole('region', { name: id, exact: true });
const badge = (id: string) => region(id).locator('.badge-text').textContent();
const servers = () =>
  (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers;

describe('panel changes applied by the bridge reload', () => {
  beforeAll(async () => {
    const dir = tempDir('panel-reload-');
    file = join(dir, 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify(
        {
          mcpServers: {
            everything: nodeEntry(EVERYTHING_SERVER),
            one: nodeEntry(fixture('mcpFixtureServer.mjs'), ['--name', 'one']),
          },
        },
        null,
        2,
      ),
    );
    bridge = await startBridge({ config: file, args: ['--watch'] });
    chrome = await launchPanelBrowser();
    panel = await chrome.newPage({ viewport: { width: 1200, height: 900 } });
    page = panel.page;
    await page.goto(`${bridge.url}/#token=${bridge.bearer}`);
    await region('everything').getByRole('switch', { name: 'Enabled' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await panel?.context.close();
    await chrome?.close();
    await cleanupBridges();
  }, 40_000);

  it('a server added through the form starts and shows Ready; the others keep their pids', async () => {
    const before = { everything: (await bridge.server('everything')).pid, one: (await bridge.server('one')).pid };
    await page.getByRole('button', { name: 'Add server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add server' });
    await dialog.getByLabel('Name', { exact: true }).fill('added');
    await dialog.getByLabel('Command', { exact: true }).fill(process.execPath);
    await dialog.getByLabel('Arguments', { exact: true }).fill(`${fixture('mcpFixtureServer.mjs')}\n--name\nadded`);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => badge('added'), { timeout: 20_000 }).toBe('Ready');
    expect((await bridge.server('everything')).pid).toBe(before.everything);
    expect((await bridge.server('one')).pid).toBe(before.one);
  });

  it('the Enabled switch stops the process and starts it again; the others keep their pids', async () => {
    const pid = (await bridge.server('one')).pid!;
    const other = (await bridge.server('everything')).pid;
    const sw = region('one').getByRole('switch', { name: 'Enabled' });
    await sw.click();
    await expect.poll(() => servers().one.disabled).toBe(true);
    await expect.poll(() => badge('one'), { timeout: 20_000 }).toBe('Disabled');
    await expect
      .poll(() => {
        try {
          process.kill(pid, 0);
          return 'alive';
        } catch {
          return 'gone';
        }
      })
      .toBe('gone');
    await sw.click();
    await expect.poll(() => badge('one'), { timeout: 20_000 }).toBe('Ready');
    expect((await bridge.server('one')).pid).not.toBe(pid);
    expect((await bridge.server('everything')).pid).toBe(other);
  });

  it('a tool switched off is gone from an open session after list_changed', async () => {
    const { client } = await bridge.client('/mcp/everything');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    const r = region('everything');
    await r.locator('details.tools > summary').click();
    await r.getByRole('switch', { name: 'echo', exact: true }).click();
    await expect.poll(() => changed, { timeout: 20_000 }).toBeGreaterThan(0);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('echo');
  });
});
