// The install consent's Sandbox fields in real Chromium through a running bridge: the proposed
// sandbox is filled in and chosen (On); the user's edits to its fields (a write path, a host)
// outlive "Use these values", which makes a new plan; Confirm writes what the fields hold into
// mcp.json.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { cleanupBridges, tempDir, type BridgeProcess } from '../helpers/bridgeProcess.js';
import { startInstallBridge } from '../helpers/installBridge.js';
import { launchPanelBrowser, nonNetworkErrors, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';
import { waitFor } from '../helpers/waitFor.js';
import { FixtureRegistry } from '../fixtures/registry/fixtureRegistry.js';

const FILES_DOC = JSON.parse(readFileSync(join(__dirname, '../fixtures/registry/files-root.json'), 'utf8')) as Record<
  string,
  unknown
>;

let registry: FixtureRegistry;
let bridge: BridgeProcess;
let file: string;
let chrome: PanelBrowser | undefined;
let panel: PanelPage;
let page: Page;
const project = join(tempDir('consent-sandbox-'), 'project');
const state = join(dirname(project), 'state');
const other = join(dirname(project), 'other');
for (const d of [project, state, other]) mkdirSync(d);

beforeAll(async () => {
  registry = new FixtureRegistry({ servers: [FILES_DOC] });
  await registry.listen();
  ({ bridge, file } = await startInstallBridge(registry.url, 'consent-sandbox-bridge-'));
  chrome = await launchPanelBrowser();
  panel = await chrome.newPage({ viewport: { width: 1200, height: 900 } });
  page = panel.page;
  await page.goto(`${bridge.url}/#token=${bridge.bearer}`);
  await page.getByRole('button', { name: 'Browse' }).waitFor();
}, 60_000);

afterAll(async () => {
  expect(nonNetworkErrors(panel?.errors ?? [])).toEqual([]);
  await panel?.context.close();
  await chrome?.close();
  await cleanupBridges();
  await registry?.close();
}, 40_000);

describe.skipIf(process.platform === 'win32')("the install consent's Sandbox fields", () => {
  it('propose On; keep the edits across a new plan; Confirm writes them to mcp.json', async () => {
    await page.getByRole('button', { name: 'Browse' }).click();
    const browse = page.getByRole('dialog', { name: 'Browse servers' });
    const result = browse.getByRole('region', { name: 'io.github.test/files' });
    await result.getByRole('button', { name: 'Install' }).click();
    const consent = page.getByRole('dialog', { name: 'Install io.github.test/files?' });
    await consent.waitFor();
    const mode = consent.getByLabel('Run in a sandbox');
    const writes = consent.getByLabel('Write paths');
    const hosts = consent.getByLabel('Allowed hosts');

    // The first plan: its URL's host proposed, the sandbox chosen.
    expect(await mode.inputValue()).toBe('on');
    expect(await hosts.inputValue()).toBe('index.example.com:8443');
    await consent.getByLabel('root (required)').fill(project);
    await consent.getByLabel('CACHE_FILE (required)').fill(join(state, 'cache.jsonl'));
    await consent.getByRole('button', { name: 'Use these values' }).click();
    await waitFor(async () => (await writes.inputValue()) === `${project}\n${state}`, 10_000, 'the root proposed');
    expect(await mode.inputValue()).toBe('on');

    // The user narrows the sandbox, then changes a value: a new plan, the edits kept.
    await writes.fill(project);
    await hosts.fill('api.example.com');
    await consent.getByLabel('CACHE_FILE (required)').fill(join(other, 'cache.jsonl'));
    await consent.getByRole('button', { name: 'Use these values' }).click();
    await waitFor(
      async () => (await consent.textContent())?.includes(`CACHE_FILE=${join(other, 'cache.jsonl')}`),
      10_000,
      'the new plan shown',
    );
    expect(await consent.textContent()).toContain(`Sandbox it proposes: files: write ${project}, ${other}`);
    expect(await writes.inputValue()).toBe(project);
    expect(await hosts.inputValue()).toBe('api.example.com');
    expect(await mode.inputValue()).toBe('on');

    await consent.getByRole('button', { name: 'Confirm' }).click();
    await consent.waitFor({ state: 'detached' });
    const written = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, Record<string, unknown>> };
    expect(written.mcpServers.files.sandbox).toEqual({
      filesystem: { write: [project] },
      network: { allow: ['api.example.com'] },
    });
  }, 60_000);
});
