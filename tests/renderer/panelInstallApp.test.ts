// The panel's installs in the app's data path, in real Chromium: the page uses
// `window.mcpRuntime` (as the Electron preload exposes it), whose calls run, in this test
// process, the real preload API over a fake ipcRenderer wired to the real install and
// management handlers (sender checks included), the real InstallService and ManagementService,
// and through them a real bridge with a fixture registry. Browse shows the consent with the
// exact command; a .mcpb the OS opened (planned by the main process) shows its consent by
// itself, and Confirm installs it. Nothing goes to the bridge from the page over HTTP.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { cleanupBridges, startBridge, tempDir, type BridgeProcess } from '../helpers/bridgeProcess.js';
import {
  buildPanelToTemp,
  launchPanelBrowser,
  nonNetworkErrors,
  type PanelBrowser,
  type PanelPage,
} from '../helpers/panelBrowser.js';
import { startStatusHttpHarness, type StatusHttpHarness } from '../helpers/statusHttpHarness.js';
import { waitFor } from '../helpers/waitFor.js';
import { FixtureRegistry } from '../fixtures/registry/fixtureRegistry.js';
import { greeterBundle } from '../fixtures/registry/bundles.js';
import { registerManagementHandlers } from '../../src/main/app/managementIpc.js';
import { registerInstallHandlers } from '../../src/main/app/installIpc.js';
import { ManagementService } from '../../src/main/config/managementService.js';
import { InstallService } from '../../src/main/install/installService.js';
import type { McpRuntimeApi } from '../../src/shared/ipcContract.js';
import { exposePreloadApi, inProcessIpc, SERVER_MANAGER_METHODS } from '../helpers/preloadPage.js';

const FIXTURES = join(__dirname, '../fixtures/registry');
const doc = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>;

let registry: FixtureRegistry;
let bridge: BridgeProcess;
let chrome: PanelBrowser | undefined;
let panel: PanelPage;
let page: Page;
let harness: StatusHttpHarness | undefined;
let built: { dir: string; remove(): void } | undefined;
let dir: string;
let file: string;
let dataDir: string;
let service: InstallService;
const invoked: string[] = [];

const servers = () => JSON.parse(readFileSync(file, 'utf8')).mcpServers as Record<string, unknown>;

beforeAll(async () => {
  registry = new FixtureRegistry({ servers: [doc('memory.json'), doc('pypi-time.json')] });
  await registry.listen();
  dir = tempDir('panel-install-app-');
  file = join(dir, 'mcp.json');
  dataDir = join(dir, 'data');
  writeFileSync(file, JSON.stringify({ mcpServers: {} }, null, 2));
  bridge = await startBridge({ config: file, env: { QIMING_REGISTRY_URL: registry.url, QIMING_DATA_DIR: dataDir } });
  built = await buildPanelToTemp();
  harness = await startStatusHttpHarness({
    staticDir: built.dir,
    status: await (await bridge.fetch('/status')).json(),
  });

  const pageUrl = `${harness.origin}/index.html`;
  const { ipcMain, api } = inProcessIpc(pageUrl, (ch) => void invoked.push(ch));
  const toBridge = async () => ({ url: bridge.url, token: bridge.bearer });
  registerManagementHandlers(ipcMain, new ManagementService({ configFile: file, bridge: toBridge }), { pageUrl });
  // As main.ts does: the window is told an opened bundle waits.
  service = new InstallService({
    bridge: toBridge,
    notify: () => void page.evaluate(() => (window as any).bundleOpened()),
  });
  registerInstallHandlers(ipcMain, service, { pageUrl });

  chrome = await launchPanelBrowser();
  panel = await chrome.newPage({ viewport: { width: 1200, height: 900 } });
  page = panel.page;
  await exposePreloadApi(page, {
    api,
    status: async () => (await bridge.fetch('/status')).json(),
    methods: [
      ...SERVER_MANAGER_METHODS,
      'installSearch',
      'installConfirm',
      'installUninstall',
      'installedServers',
      'takeOpenedBundles',
    ],
    // Playwright carries JSON: a bundle's bytes come as a list of numbers, made a Uint8Array again.
    args: (name, args) => {
      const [req] = args as [{ bundle?: { fileName: string; data: number[] } }];
      return name === 'installPlan' && req?.bundle
        ? [{ bundle: { fileName: req.bundle.fileName, data: new Uint8Array(req.bundle.data) } }]
        : args;
    },
  });
  // What the page adds to the preload API: bytes sent as numbers, and the OS opening a bundle.
  await page.addInitScript(() => {
    const w = window as unknown as Record<string, unknown> & {
      hostInvoke(n: string, a: unknown[]): Promise<unknown>;
      mcpRuntime: Partial<McpRuntimeApi>;
    };
    const opened: (() => void)[] = [];
    w.bundleOpened = () => opened.forEach((cb) => cb());
    w.mcpRuntime.installPlan = (req) =>
      w.hostInvoke('installPlan', [
        'bundle' in req ? { bundle: { fileName: req.bundle.fileName, data: Array.from(req.bundle.data) } } : req,
      ]) as never;
    w.mcpRuntime.onBundleOpened = (cb) => {
      opened.push(cb);
      return () => undefined;
    };
  });
  await page.goto(pageUrl);
  await page.getByRole('button', { name: 'Browse' }).waitFor();
}, 60_000);

afterAll(async () => {
  expect(nonNetworkErrors(panel?.errors ?? [])).toEqual([]);
  await panel?.context.close();
  await chrome?.close();
  await harness?.close();
  built?.remove();
  await cleanupBridges();
  await registry?.close();
}, 40_000);

describe('installing in the app (preload API, IPC handlers, InstallService, a real bridge)', () => {
  it('Browse searches over IPC and the consent shows the exact command; Cancel writes nothing', async () => {
    await page.getByRole('button', { name: 'Browse' }).click();
    const browse = page.getByRole('dialog', { name: 'Browse servers' });
    await browse.getByLabel('Search servers').fill('time');
    await browse.getByLabel('Search servers').press('Enter');
    const result = browse.getByRole('region', { name: 'io.github.example/time' });
    await result.getByRole('button', { name: 'Install' }).click();
    const consent = page.getByRole('dialog', { name: 'Install io.github.example/time?' });
    expect(await consent.getByLabel('Command').textContent()).toBe('uvx mcp-server-time==0.6.2 --local-timezone=UTC');
    await consent.getByRole('button', { name: 'Cancel' }).click();
    await consent.waitFor({ state: 'detached' });
    await browse.getByRole('button', { name: 'Close' }).click();
    expect(servers()).toEqual({});
    expect(invoked).toEqual(expect.arrayContaining(['mcp:install:search', 'mcp:install:plan']));
  });

  it('a .mcpb the OS opened shows its consent by itself; its values and Confirm install it', async () => {
    const path = join(dir, 'greeter.mcpb');
    writeFileSync(path, await greeterBundle());
    await service.openBundleFile(path);
    const consent = page.getByRole('dialog', { name: 'Install Greeter?' });
    await consent.waitFor();
    const folder = join(dataDir, 'bundles', 'greeter');
    expect(await consent.getByLabel('Command').textContent()).toBe(`node ${folder}/server/index.js`);
    expect(await consent.textContent()).toContain('Source: the file greeter.mcpb');
    await consent.getByLabel('API token (required)').fill('tok-app-panel-5');
    await consent.getByRole('button', { name: 'Use these values' }).click();
    await waitFor(
      async () => !(await consent.getByRole('button', { name: 'Confirm' }).isDisabled()),
      10_000,
      'Confirm enabled',
    );
    expect(await consent.textContent()).not.toContain('tok-app-panel-5');
    await consent.getByRole('button', { name: 'Confirm' }).click();
    await consent.waitFor({ state: 'detached' });
    expect(servers().greeter).toBeDefined();
    expect(existsSync(join(folder, 'server', 'index.js'))).toBe(true);
    expect(invoked).toEqual(expect.arrayContaining(['mcp:install:take-opened', 'mcp:install:confirm']));
    // The page never spoke to the bridge itself: only its own files came over HTTP.
    expect(
      harness!.requests.map((q) => q.path).filter((p) => !/^\/(index\.html|panel\.(js|css)|manage\.css)?$/.test(p)),
    ).toEqual([]);
  }, 60_000);

  it('a .mcpb that cannot be planned says why', async () => {
    const bad = join(dir, 'broken.mcpb');
    writeFileSync(bad, 'not a zip');
    await service.openBundleFile(bad);
    const d = page.getByRole('dialog', { name: 'Cannot open broken.mcpb' });
    await d.waitFor();
    expect(await d.getByRole('alert').textContent()).toMatch(/^not a valid bundle \(zip\)/);
    await d.getByRole('button', { name: 'Close' }).click();
    await d.waitFor({ state: 'detached' });
  });
});
