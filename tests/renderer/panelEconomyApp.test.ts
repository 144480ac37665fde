// The tool economy in the panel on the app's data path, in real Chromium: the page reads
// `window.mcpRuntime`, whose calls run, in this test process, the real preload API
// (createPreloadApi) over a stand-in ipcRenderer wired to what attachToApp registered (real
// IPC handlers, sender checks included) and to its status pushes, for a real McpRuntime that
// started the real bridge with real servers over the configured toolBudgetTokens. The cards
// show their tools' weight and the top line tool search; a real MCP client on the bridge's
// /mcp runs search_tools and the page shows that session's loaded tools from the pushed status;
// AcpEngine drives the fixture ACP agent posing as Claude (every tool: it searches by itself)
// and as gemini-cli (the runtime's tool search), and the page lists both agent sessions with
// the list that applies to each (a screenshot, looked at, at 1200 px, kept with
// UPDATE_SCREENSHOTS=1 as docs/screenshots/agent-exposure.png); when the bridge stops, the line goes.
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { attachToApp, type AttachedApp, type ElectronAppLike } from '../../src/main/app/attachToApp.js';
import type { IpcInvokeEventLike, IpcMainLike } from '../../src/main/app/ipcHandlers.js';
import { createPreloadApi } from '../../src/main/app/preloadApi.js';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import { AcpEngine } from '../../src/main/acp/acpEngine.js';
import { nodeCommand } from '../../src/main/runtime/cliPath.js';
import { descendantsOf } from '../helpers/procTree.js';
import { ROOT } from '../helpers/paths.js';
import type { McpRuntimeApi } from '../../src/shared/ipcContract.js';
import type { RuntimeStatus } from '../../src/shared/status.js';
import { FILESYSTEM_SERVER } from '../helpers/paths.js';
import { buildPanelToTemp, launchPanelBrowser, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';
import { startStatusHttpHarness, type StatusHttpHarness } from '../helpers/statusHttpHarness.js';
import {
  cleanupRuntimes,
  ensureCli,
  everythingEntry,
  FIXTURES,
  memoryEntry,
  memoryLogger,
  tempDir,
  waitFor,
  writeConfig,
} from '../main/mainHarness.js';

const AGENT = 'app-agent';

/** Electron's app as attachToApp sees it: ready at once; quitting is the test's own stop. */
class ReadyApp extends EventEmitter implements ElectronAppLike {
  whenReady = () => Promise.resolve();
  quit(): void {}
  exit(): void {}
}

let runtime: McpRuntime;
let attached: AttachedApp | undefined;
let chrome: PanelBrowser | undefined;
let panel: PanelPage | undefined;
let page: Page;
let harness: StatusHttpHarness | undefined;
let built: { dir: string; remove(): void } | undefined;
let client: Client | undefined;
const engines: AcpEngine[] = [];
const pids = new Set<number>();
const pushed: RuntimeStatus[] = [];

beforeAll(async () => {
  const dir = tempDir('panel-economy-app-');
  const files = join(dir, 'files');
  mkdirSync(files);
  const configFile = join(dir, 'mcp.json');
  writeConfig(configFile, {
    toolBudgetTokens: 3000,
    mcpServers: {
      everything: everythingEntry(),
      filesystem: { command: process.execPath, args: [FILESYSTEM_SERVER, files] },
      memory: { ...memoryEntry(dir), expose: 'always' },
    },
  });
  built = await buildPanelToTemp();
  // Serves the built page only (its origin is the trusted page); no status over HTTP is used.
  harness = await startStatusHttpHarness({
    staticDir: built.dir,
    status: { bridge: { state: 'starting' }, servers: [] },
  });
  const pageUrl = `${harness.origin}/index.html`;

  // Main: attachToApp on a stand-in ipcMain, pushing status to a stand-in webContents.
  const handlers = new Map<string, (event: IpcInvokeEventLike, ...args: unknown[]) => unknown>();
  const ipcMain: IpcMainLike = {
    handle: (ch, fn) => void handlers.set(ch, fn),
    removeHandler: (ch) => void handlers.delete(ch),
  };
  const listeners = new Map<string, ((event: unknown, ...args: unknown[]) => void)[]>();
  const webContents = {
    send: (ch: string, ...args: unknown[]) => {
      for (const l of listeners.get(ch) ?? []) l({ sender: 'never reaches the page' }, ...args);
    },
  };
  runtime = new McpRuntime({ configFile, cliPath: ensureCli(), watchConfig: false, logger: memoryLogger().logger });
  attached = attachToApp(new ReadyApp(), ipcMain, runtime, {
    pageUrl,
    statusTargets: () => [webContents],
    loginPath: false,
    processLike: new EventEmitter(),
  });
  // Renderer: the real preload API over a stand-in ipcRenderer.
  const api = createPreloadApi({
    invoke: async (ch, ...args) => handlers.get(ch)!({ senderFrame: { url: pageUrl, parent: null } }, ...args),
    on: (ch, l) => void listeners.set(ch, [...(listeners.get(ch) ?? []), l]),
    removeListener: (ch, l) =>
      void listeners.set(
        ch,
        (listeners.get(ch) ?? []).filter((x) => x !== l),
      ),
  });

  chrome = await launchPanelBrowser();
  panel = await chrome.newPage({ viewport: { width: 1200, height: 800 } });
  page = panel.page;
  await page.exposeFunction('hostGetStatus', () => api.getStatus());
  // Every status main pushes reaches the page's listener, in order.
  api.onStatus((status) => {
    pushed.push(status);
    void page
      .evaluate((s) => (window as unknown as { pushStatus?: (s: unknown) => void }).pushStatus?.(s), status)
      .catch(() => undefined);
  });
  await page.addInitScript(() => {
    const w = window as unknown as Record<string, unknown> & { hostGetStatus(): Promise<unknown> };
    w.mcpRuntime = {
      getStatus: () => w.hostGetStatus() as never,
      onStatus: (cb) => {
        w.pushStatus = cb;
        return () => void delete w.pushStatus;
      },
      restart: async () => ({ ok: true }),
      signIn: async () => ({ ok: false, error: 'no OAuth here' }),
      signOut: async () => ({ ok: true }),
    } satisfies Partial<McpRuntimeApi>;
  });
  await attached.started;
  await runtime.whenReady();
  const st = runtime.status();
  for (const p of [st.bridge.pid, ...st.servers.map((s) => s.pid)]) if (p) pids.add(p);
  await page.goto(pageUrl);
}, 60_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  for (const e of engines) await e.stop({ deadlineMs: 3000 });
  await panel?.context.close();
  await chrome?.close();
  await harness?.close();
  built?.remove();
  attached?.detach();
  expect(await cleanupRuntimes(runtime ? [runtime] : [], pids)).toEqual([]);
}, 40_000);

describe('the tool economy in the app (preload API, IPC, McpRuntime)', () => {
  it('shows tool search, each card’s weight and what a session loaded, from the status main pushes', async () => {
    await page.locator('section.economy').waitFor();
    expect(await page.locator('.economy-mode').textContent()).toBe('Tool search on');
    expect(await page.locator('.economy-why').textContent()).toMatch(
      /^ \(auto: ~\d+(\.\d)?k? tokens over the 3k budget\)$/,
    );
    const status = runtime.status();
    const memory = status.servers.find((s) => s.id === 'memory')!;
    expect(memory.toolTokens).toBeGreaterThan(0);
    expect(await page.locator('li.server[data-server-id="memory"] details.tools summary').textContent()).toMatch(
      new RegExp(`^${memory.tools.length} tools \u00b7 ~\\d+(\\.\\d)?k? tokens \u00b7 always listed$`),
    );

    const info = await runtime.whenReady();
    client = new Client({ name: AGENT, version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${info.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${info.token}` } },
      }),
    );
    const r = await client.callTool({ name: 'search_tools', arguments: { query: 'list a directory', limit: 2 } });
    const found = (r.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(found.length).toBeGreaterThan(0);
    const session = await waitFor(
      () => pushed.at(-1)?.economy?.sessions.find((s) => s.client === AGENT),
      10_000,
      'a pushed status with the session that searched',
    );
    expect(session.loaded).toEqual(found);
    await page.waitForFunction(
      (n) => document.querySelectorAll('li.economy-session .economy-tool').length === n,
      found.length,
    );
    expect(await page.locator('.economy-client').textContent()).toBe(AGENT);
    expect(await page.locator('li.economy-session .economy-tool code').allTextContents()).toEqual(found);
    expect(panel!.errors).toEqual([]);
  }, 30_000);

  it('lists each agent session with the tools it is handed: Claude every tool, gemini the tool search', async () => {
    for (const name of ['@agentclientprotocol/claude-agent-acp', 'gemini-cli']) {
      const engine = new AcpEngine({
        command: process.execPath,
        args: [join(FIXTURES, 'acpAgent.mjs'), '--name', name],
        runtime,
        mcp: { cliPath: ensureCli(), node: nodeCommand() },
        logger: memoryLogger().logger,
      });
      engines.push(engine);
      await engine.start();
      pids.add(engine.pid!);
      await engine.newSession(tempDir('panel-economy-app-cwd-'));
      for (const p of descendantsOf(engine.pid!)) pids.add(p);
    }
    await page.waitForFunction(() => document.querySelectorAll('li.economy-agent').length === 2);
    const rows = await page
      .locator('li.economy-agent')
      .evaluateAll((lis) => lis.map((li) => ({ text: li.textContent, tools: (li as HTMLElement).dataset.tools })));
    // Newest first; each stdio proxy links to the bridge once per server.
    expect(rows).toEqual([
      {
        text: "gemini-cli \u00b7 stdio \u00b7 3 connections \u00b7 the runtime's tool search (search_tools, call_tool)",
        tools: 'search',
      },
      {
        text: '@agentclientprotocol/claude-agent-acp \u00b7 stdio \u00b7 3 connections \u00b7 every tool: the agent searches by itself',
        tools: 'all',
      },
    ]);
    expect(await page.locator('.economy-agents-title').textContent()).toBe('Agent sessions: 2 connected');
    await page.setViewportSize({ width: 1200, height: 800 });
    const file =
      process.env.UPDATE_SCREENSHOTS === '1'
        ? join(ROOT, 'docs', 'screenshots', 'agent-exposure.png')
        : join(tempDir('panel-economy-app-shot-'), 'agent-exposure.png');
    await page.locator('section.economy').screenshot({ path: file });
    // Claude's session ends: it stays listed, ended.
    await engines[0]!.stop({ deadlineMs: 3000 });
    await page.locator('li.economy-agent.ended').waitFor();
    expect(await page.locator('li.economy-agent.ended').textContent()).toMatch(
      /^@agentclientprotocol\/claude-agent-acp \u00b7 stdio \u00b7 ended/,
    );
    expect(await page.locator('.economy-agents-title').textContent()).toBe('Agent sessions: 1 connected, 1 ended');
    expect(panel!.errors).toEqual([]);
  }, 60_000);

  it('hides the line once the bridge stops: its sessions went with it', async () => {
    await client?.close();
    client = undefined;
    await runtime.stop({ deadlineMs: 5000 });
    expect(runtime.status().bridge.state).toBe('stopped');
    expect(runtime.status().economy).toBeUndefined();
    await page.locator('section.economy').waitFor({ state: 'hidden' });
    expect(await page.locator('li.server[data-server-id="memory"] .badge-text').textContent()).toBe('Stopped');
    expect(panel!.errors).toEqual([]);
  }, 20_000);
});
