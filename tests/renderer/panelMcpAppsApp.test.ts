// MCP Apps views in the app's data path, in real Chromium: the page's `window.mcpRuntime` runs,
// in this test process, the real preload API over a fake ipcRenderer wired to the real IPC
// handlers (management for the Activity view, appViewIpc.ts with an AppViewService for views),
// to a real bridge. "Open app" asks for the view over `mcp:app:view`; its frame comes from the
// app's sandbox origin (appViewProtocol.ts's answer, the one `qiming-app://sandbox/` gives,
// served here on a loopback origin of its own: Chromium under Playwright has no custom scheme),
// and the view's button calls its app-only tool over `mcp:app:call`, recorded by the bridge
// under the view's client; the page never reaches the bridge over HTTP. When the server gives
// another view after a restart (pinned views, `block`), "Open app" shows the drift and
// "Accept new view" accepts it over `mcp:app:accept`, then shows it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cleanupBridges, startBridge, tempDir, waitFor, type BridgeProcess } from '../helpers/bridgeProcess.js';
import { FIXTURES } from '../helpers/paths.js';
import { buildPanelToTemp, launchPanelBrowser, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';
import { startStatusHttpHarness, type StatusHttpHarness } from '../helpers/statusHttpHarness.js';
import { exposePreloadApi, inProcessIpc } from '../helpers/preloadPage.js';
import { registerManagementHandlers } from '../../src/main/app/managementIpc.js';
import { registerAppViewHandlers } from '../../src/main/app/appViewIpc.js';
import { AppViewService } from '../../src/main/app/appViewService.js';
import { appViewAnswer, APP_VIEW_SCHEME } from '../../src/main/app/appViewProtocol.js';
import { ManagementService } from '../../src/main/config/managementService.js';
import { IPC_CHANNELS } from '../../src/shared/ipcContract.js';
import type { ActivityPage } from '../../src/shared/activity.js';

let bridge: BridgeProcess;
let chrome: PanelBrowser | undefined;
let panel: PanelPage;
let page: Page;
let harness: StatusHttpHarness | undefined;
let built: { dir: string; remove(): void } | undefined;
let agent: Client;
let sandbox: Server;
/** The view the note server gives (read at each of its starts). */
let viewFile: string;
/** Each IPC channel the page used. */
const channels: string[] = [];

const sandboxOrigin = () => `http://127.0.0.1:${(sandbox.address() as AddressInfo).port}`;

beforeAll(async () => {
  const dir = tempDir('panel-apps-app-');
  viewFile = join(dir, 'view.html');
  copyFileSync(join(FIXTURES, 'appView', 'noteView.html'), viewFile);
  bridge = await startBridge({
    config: {
      mcpServers: {
        notes: {
          command: process.execPath,
          args: [join(FIXTURES, 'appView', 'appViewServer.mjs'), '--view', viewFile],
        },
      },
    },
    env: { QIMING_PINS_DIR: join(dir, 'pins'), QIMING_PINNING: 'block' },
  });
  agent = new Client({ name: 'app-agent', version: '1.0.0' });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), { requestInit: { headers: bridge.auth } }),
  );
  await agent.callTool({ name: 'notes__show_note', arguments: { text: 'in the app' } });

  built = await buildPanelToTemp();
  harness = await startStatusHttpHarness({
    staticDir: built.dir,
    status: await (await bridge.fetch('/status')).json(),
  });
  const pageUrl = `${harness.origin}/index.html`;
  // The app's sandbox origin: the scheme's own answer, framed only by the page's origin.
  sandbox = createServer((req, res) => {
    const request = new Request(`${APP_VIEW_SCHEME}://sandbox${req.url ?? '/'}`, { method: req.method });
    void appViewAnswer(request, built!.dir, [harness!.origin]).then(async (a) => {
      const headers: Record<string, string> = {};
      a.headers.forEach((v, k) => (headers[k] = v));
      res.writeHead(a.status, headers);
      res.end(Buffer.from(await a.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => sandbox.listen(0, '127.0.0.1', r));

  const { ipcMain, api } = inProcessIpc(pageUrl, (ch) => channels.push(ch));
  const locate = async () => ({ url: bridge.url, token: bridge.bearer });
  registerManagementHandlers(ipcMain, new ManagementService({ configFile: join(dir, 'mcp.json'), bridge: locate }), {
    pageUrl,
  });
  registerAppViewHandlers(ipcMain, undefined, {
    pageUrl,
    views: new AppViewService({ bridge: locate, sandboxUrl: `${sandboxOrigin()}/sandbox.html` }),
  });

  chrome = await launchPanelBrowser();
  panel = await chrome.newPage({ viewport: { width: 1300, height: 1000 } });
  page = panel.page;
  await exposePreloadApi(page, {
    api,
    status: async () => (await bridge.fetch('/status')).json(),
    methods: ['activity', 'appView', 'appViewCall', 'appViewRead', 'appViewAccept'],
  });
  await page.goto(pageUrl);
  await page.getByRole('region', { name: 'notes', exact: true }).waitFor();
}, 90_000);

afterAll(async () => {
  expect(panel?.errors ?? []).toEqual([]);
  await agent?.close().catch(() => undefined);
  await panel?.context.close();
  await chrome?.close();
  await harness?.close();
  sandbox?.close();
  built?.remove();
  await cleanupBridges();
}, 40_000);

describe('MCP Apps views in the app (preload API, IPC handlers, AppViewService)', () => {
  it('opens a view over IPC, framed from the app’s sandbox origin, whose call goes through the bridge', async () => {
    await page.getByRole('button', { name: 'Activity', exact: true }).click();
    const activity = page.getByRole('dialog', { name: 'Activity' });
    await activity
      .getByRole('table', { name: 'Calls' })
      .locator('tbody tr', { hasText: 'notes__show_note' })
      .first()
      .click();
    // The view host is a file of its own, loaded at the first "Open app" only.
    const hostLoads = () => harness!.requests.filter((r) => r.path === '/mcp-app.js').length;
    expect(hostLoads()).toBe(0);
    await activity.getByRole('button', { name: 'Open app' }).click();
    const outer = page.frameLocator('iframe[title="App: notes show_note"]');
    const view = outer.frameLocator('iframe');
    await expect
      .poll(() => view.locator('#input').textContent(), { timeout: 15_000 })
      .toBe('input: {"text":"in the app"}');
    await expect.poll(() => view.locator('#result').textContent()).toBe('result: note: in the app');
    const frame = page.frames().find((f) => f.url().includes('/sandbox.html'))!;
    expect(new URL(frame.url()).origin).toBe(sandboxOrigin());
    expect(hostLoads()).toBe(1);

    await view.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => view.locator('#refreshed').textContent(), { timeout: 15_000 }).toBe('refreshed 1');
    const rec = await waitFor(
      async () =>
        ((await (await bridge.fetch('/activity?limit=500')).json()) as ActivityPage).records.find(
          (x) => x.client === 'app view notes show_note' && x.name === 'app_refresh',
        ),
      15_000,
      "the view's call in the bridge's activity",
    );
    expect(rec.outcome).toBe('ok');
    expect(channels).toEqual(expect.arrayContaining([IPC_CHANNELS.appView, IPC_CHANNELS.appViewCall]));
    // The page reached the bridge only through main.
    expect(
      harness!.requests.map((r) => r.path).filter((p) => p.startsWith('/apps') || p.startsWith('/activity')),
    ).toEqual([]);
  }, 90_000);

  it('shows a changed view as a drift, and "Accept new view" accepts it over IPC, then shows it', async () => {
    writeFileSync(viewFile, readFileSync(viewFile, 'utf8').replace('<h1>Note view</h1>', '<h1>Changed note view</h1>'));
    expect((await bridge.fetch('/servers/notes/restart', { method: 'POST' })).ok).toBe(true);
    await waitFor(
      async () => {
        const s = (await (await bridge.fetch('/status')).json()) as { servers: { id: string; state: string }[] };
        return s.servers.find((x) => x.id === 'notes')?.state === 'ready';
      },
      30_000,
      'notes ready again',
    );
    await agent.callTool({ name: 'notes__show_note', arguments: { text: 'changed' } });
    const activity = page.getByRole('dialog', { name: 'Activity' });
    const rows = activity.getByRole('table', { name: 'Calls' }).locator('tbody tr', { hasText: 'notes__show_note' });
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    await rows.first().click();
    await activity.getByRole('button', { name: 'Open app' }).click();
    const notice = activity.getByRole('region', { name: 'Changed view of notes' });
    await notice.waitFor({ timeout: 15_000 });
    expect(await notice.getByRole('heading').textContent()).toBe('View ui://notes/view.html of notes changed');
    expect(await page.locator('iframe[title="App: notes show_note"]').count()).toBe(0);
    await notice.getByRole('button', { name: 'Accept new view' }).click();
    const view = page.frameLocator('iframe[title="App: notes show_note"]').frameLocator('iframe');
    await expect.poll(() => view.locator('h1').textContent(), { timeout: 15_000 }).toBe('Changed note view');
    await expect.poll(() => view.locator('#input').textContent()).toBe('input: {"text":"changed"}');
    expect(channels).toContain(IPC_CHANNELS.appViewAccept);
    expect(harness!.requests.map((r) => r.path).filter((p) => p.startsWith('/apps'))).toEqual([]);
  }, 90_000);
});
