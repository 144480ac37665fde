// The panel's management in the app's data path, in real Chromium: the page uses
// `window.mcpRuntime` (as the Electron preload exposes it), whose calls run, in this test
// process, the real preload API (createPreloadApi) over a fake ipcRenderer wired to the real
// IPC handlers (registerManagementHandlers, sender checks included) and the real
// ManagementService: the config file edited in place, logs and Test through the real bridge.
// Only the app has agents: the per-agent selection is shown, changed, stored, and what an
// agent's session gets follows it (AcpEngine with selectServers).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  cleanupBridges,
  EVERYTHING_SERVER,
  fixture,
  nodeEntry,
  ROOT,
  startBridge,
  tempDir,
  type BridgeProcess,
} from '../helpers/bridgeProcess.js';
import { launchPanelBrowser, nonNetworkErrors, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';
import { startStatusHttpHarness, type StatusHttpHarness } from '../helpers/statusHttpHarness.js';
import { buildPanelToTemp } from '../helpers/panelBrowser.js';
import { registerManagementHandlers } from '../../src/main/app/managementIpc.js';
import { ManagementService } from '../../src/main/config/managementService.js';
import { AgentSelectionStore, selectServers } from '../../src/main/config/agentSelection.js';
import { AcpEngine } from '../../src/main/acp/acpEngine.js';
import { exposePreloadApi, inProcessIpc, SERVER_MANAGER_METHODS } from '../helpers/preloadPage.js';

let bridge: BridgeProcess;
let chrome: PanelBrowser | undefined;
let panel: PanelPage;
let page: Page;
let harness: StatusHttpHarness | undefined;
let built: { dir: string; remove(): void } | undefined;
let file: string;
let agents: AgentSelectionStore;
const invoked: string[] = [];

const region = (id: string) => page.getByRole('region', { name: id, exact: true });
const servers = () =>
  (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers;

beforeAll(async () => {
  const dir = tempDir('panel-app-');
  file = join(dir, 'mcp.json');
  writeFileSync(
    file,
    JSON.stringify(
      { mcpServers: { everything: nodeEntry(EVERYTHING_SERVER), chatty: nodeEntry(fixture('chattyServer.mjs')) } },
      null,
      2,
    ),
  );
  bridge = await startBridge({ config: file, env: { MCP_PROXY_LOG_FILE: join(dir, 'proxy.log') } });
  built = await buildPanelToTemp();
  harness = await startStatusHttpHarness({
    staticDir: built.dir,
    status: await (await bridge.fetch('/status')).json(),
  });
  agents = new AgentSelectionStore(join(dir, 'agent-servers.json'));

  // Main: the real handlers on a fake ipcMain. Renderer: the real preload API over a fake ipcRenderer.
  const { ipcMain, api } = inProcessIpc(`${harness.origin}/index.html`, (ch) => void invoked.push(ch));
  const service = new ManagementService({
    configFile: file,
    bridge: async () => ({ url: bridge.url, token: bridge.bearer }),
    agents,
  });
  registerManagementHandlers(ipcMain, service, { pageUrl: `${harness.origin}/index.html` });

  chrome = await launchPanelBrowser();
  panel = await chrome.newPage({ viewport: { width: 1200, height: 900 } });
  page = panel.page;
  await exposePreloadApi(page, {
    api,
    status: async () => (await bridge.fetch('/status')).json(),
    methods: [...SERVER_MANAGER_METHODS, 'getAgents', 'setAgentServers'],
  });
  await page.goto(`${harness.origin}/index.html`);
  await region('everything').getByRole('switch', { name: 'Enabled' }).waitFor();
}, 60_000);

afterAll(async () => {
  expect(nonNetworkErrors(panel?.errors ?? [])).toEqual([]);
  await panel?.context.close();
  await chrome?.close();
  await harness?.close();
  built?.remove();
  await cleanupBridges();
}, 40_000);

describe('the panel in the app (preload API, IPC handlers, ManagementService)', () => {
  it('changes the config over IPC: a tool switch writes tools.deny; never over HTTP', async () => {
    const r = region('everything');
    await r.locator('details.tools > summary').click();
    await r.getByRole('switch', { name: 'get-sum', exact: true }).click();
    await expect.poll(() => servers().everything.tools).toEqual({ deny: ['get-sum'] });
    expect(invoked).toContain('mcp:config:change');
    expect(
      harness!.requests.map((q) => q.path).filter((p) => !/^\/(index\.html|panel\.(js|css)|manage\.css)?$/.test(p)),
    ).toEqual([]);
  });

  it('Test and the log view go through main to the bridge', async () => {
    await region('everything').locator('li.tool[data-tool="echo"]').getByRole('button', { name: 'Test' }).click();
    const dialog = page.getByRole('dialog', { name: 'Test echo' });
    await dialog.getByLabel('message (required)').fill('hello over IPC');
    await dialog.getByRole('button', { name: 'Call tool' }).click();
    await expect.poll(() => dialog.getByRole('region', { name: 'Result' }).textContent()).toContain('hello over IPC');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await region('chatty').getByRole('button', { name: 'Show log' }).click();
    const log = page.getByRole('dialog', { name: 'Log of chatty' });
    await expect
      .poll(() => log.getByRole('listitem').allTextContents())
      .toEqual(expect.arrayContaining([expect.stringContaining('upstream refused')]));
    await log.getByRole('button', { name: 'Close' }).click();
    expect(invoked).toEqual(expect.arrayContaining(['mcp:tool:call', 'mcp:server:tools', 'mcp:server:log']));
  });

  it('shows the agents and stores a per-agent selection that the agent session then gets', async () => {
    const section = page.getByRole('region', { name: 'Agents' });
    const gemini = section.getByRole('group', { name: 'gemini' });
    expect(await gemini.getByRole('checkbox', { name: 'All servers' }).isChecked()).toBe(true);
    await gemini.getByRole('checkbox', { name: 'chatty', exact: true }).uncheck();
    await expect.poll(() => agents.serversFor('gemini')).toEqual(['everything']);
    await expect.poll(() => gemini.getByRole('checkbox', { name: 'All servers' }).isChecked()).toBe(false);
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      mkdirSync(join(ROOT, 'docs', 'screenshots'), { recursive: true });
      await page.screenshot({ path: join(ROOT, 'docs', 'screenshots', 'agents.png') });
    }
    expect(agents.serversFor('claude-code-acp')).toBeUndefined();

    const engine = new AcpEngine({
      command: process.execPath,
      runtime: {
        whenReady: async () => ({ url: bridge.url, token: bridge.bearer, port: bridge.port, servers: [] }),
        mcpServerPlan: () => ({ bridgeIds: ['everything', 'chatty'], sessionEntries: {} }),
      },
      mcp: {
        cliPath: '/app/cli.cjs',
        node: { command: process.execPath, env: {}, electron: false },
        logFile: '/tmp/x.log',
      },
      selectServers: (plan) => selectServers(plan, agents.serversFor('gemini')),
    });
    const entries = await engine.sessionMcpServers();
    const config = JSON.parse((entries[0] as { args: string[] }).args[2]!) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(config.mcpServers)).toEqual(['everything']);

    await gemini.getByRole('checkbox', { name: 'All servers' }).check();
    await expect.poll(() => agents.serversFor('gemini')).toBeUndefined();
  });
});
