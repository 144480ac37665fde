// The Activity view in the app's data path, in real Chromium: the page's `window.mcpRuntime`
// runs, in this test process, the real preload API over a fake ipcRenderer wired to the real
// IPC handlers and ManagementService, to a real bridge. The first page and the filters go
// through `mcp:activity:get`; a new call shows up without a reload (the page call asked again);
// nothing goes to the bridge over HTTP from the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cleanupBridges, startBridge, tempDir, waitFor, type BridgeProcess } from '../helpers/bridgeProcess.js';
import { fixtureEntry } from '../helpers/proxyCli.js';
import { buildPanelToTemp, launchPanelBrowser, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';
import { startStatusHttpHarness, type StatusHttpHarness } from '../helpers/statusHttpHarness.js';
import { registerManagementHandlers } from '../../src/main/app/managementIpc.js';
import { ManagementService } from '../../src/main/config/managementService.js';
import { AgentSelectionStore } from '../../src/main/config/agentSelection.js';
import { IPC_CHANNELS } from '../../src/shared/ipcContract.js';
import { exposePreloadApi, inProcessIpc } from '../helpers/preloadPage.js';

let bridge: BridgeProcess;
let chrome: PanelBrowser | undefined;
let panel: PanelPage;
let page: Page;
let harness: StatusHttpHarness | undefined;
let built: { dir: string; remove(): void } | undefined;
let agent: Client;
/** The filters of each `mcp:activity:get` the page made. */
const asked: Record<string, unknown>[] = [];

const view = () => page.getByRole('dialog', { name: 'Activity' });
const names = () =>
  view()
    .getByRole('table', { name: 'Calls' })
    .locator('tbody tr td:nth-child(5)')
    .allTextContents()
    .then((t) => t.filter(Boolean));

beforeAll(async () => {
  const dir = tempDir('panel-activity-app-');
  bridge = await startBridge({
    config: { mcpServers: { alpha: { ...fixtureEntry('alpha'), toolTimeouts: { slow: 1000 } } } },
  });
  agent = new Client({ name: 'app-agent', version: '1.0.0' });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), { requestInit: { headers: bridge.auth } }),
  );
  await agent.callTool({ name: 'alpha__echo', arguments: { text: 'one' } });
  await expect(agent.callTool({ name: 'alpha__slow', arguments: { ms: 60_000, steps: 1 } })).rejects.toThrow(
    /timed out/,
  );

  built = await buildPanelToTemp();
  harness = await startStatusHttpHarness({
    staticDir: built.dir,
    status: await (await bridge.fetch('/status')).json(),
  });
  const { ipcMain, api } = inProcessIpc(`${harness.origin}/index.html`, (ch, args) => {
    if (ch === IPC_CHANNELS.activity) asked.push(args[0] as Record<string, unknown>);
  });
  const service = new ManagementService({
    configFile: join(dir, 'mcp.json'),
    bridge: async () => ({ url: bridge.url, token: bridge.bearer }),
    agents: new AgentSelectionStore(join(dir, 'agent-servers.json')),
  });
  registerManagementHandlers(ipcMain, service, { pageUrl: `${harness.origin}/index.html` });

  chrome = await launchPanelBrowser();
  panel = await chrome.newPage({ viewport: { width: 1200, height: 900 } });
  page = panel.page;
  await exposePreloadApi(page, {
    api,
    status: async () => (await bridge.fetch('/status')).json(),
    methods: ['activity'],
  });
  await page.goto(`${harness.origin}/index.html`);
  await page.getByRole('region', { name: 'alpha', exact: true }).waitFor();
}, 90_000);

afterAll(async () => {
  expect(panel?.errors ?? []).toEqual([]);
  await agent?.close().catch(() => undefined);
  await panel?.context.close();
  await chrome?.close();
  await harness?.close();
  built?.remove();
  await cleanupBridges();
}, 40_000);

describe('the Activity view in the app (preload API, IPC handlers, ManagementService)', () => {
  it('lists the calls over IPC, filters them there, and shows a new call without a reload', async () => {
    await page.getByRole('button', { name: 'Calls of alpha' }).click();
    let seen: string[] = [];
    await waitFor(
      async () => {
        seen = await names();
        return seen.join() === 'alpha__slow,alpha__echo';
      },
      15_000,
      () => `the two calls of alpha; shown: ${seen.join()}; ${JSON.stringify(asked)}`,
    );
    await view().getByLabel('Outcome').selectOption({ label: 'Timed out' });
    await waitFor(async () => (await names()).join() === 'alpha__slow', 15_000, 'only the timed out call');
    await waitFor(
      () => asked.some((q) => q.server === 'alpha' && q.outcome === 'timeout'),
      15_000,
      'the filtered page',
    );

    await view().getByLabel('Outcome').selectOption({ label: 'Any outcome' });
    await agent.callTool({ name: 'alpha__whoami', arguments: {} });
    await waitFor(async () => (await names())[0] === 'alpha__whoami', 15_000, 'the new call on top');
    const summary = view().getByRole('region', { name: 'Latency of alpha' }).locator('.latency-summary');
    await waitFor(
      async () => /^3 calls · error rate 33% \(1\)/.test((await summary.textContent()) ?? ''),
      15_000,
      'the chart to count the new call',
    );
    // The page reached the log only through main.
    expect(harness!.requests.map((r) => r.path).filter((p) => p.startsWith('/activity'))).toEqual([]);
  });
});
