// MCP Apps views in the panel, in real Chromium against a real bridge, with the real
// @modelcontextprotocol/server-basic-vanillajs and server-system-monitor from npm (the latter's
// view polls its app-only tool) and a fixture server whose view calls
// an app-only tool back and declares a CSP: an agent's call of a tool with a view shows
// "Open app" in the Activity view; the view renders in a frame on another origin than the
// page, gets the call's input and result, and its button calls its tool back through the
// bridge (recorded under the app view's client, through approval); it cannot navigate the top
// page, open a popup, call another server's tool or fetch outside its CSP. With
// UPDATE_SCREENSHOTS=1 it writes docs/screenshots/mcp-app-view.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { hostname, tmpdir } from 'node:os';
import type { Frame, FrameLocator, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ActivityPage, ActivityRecord } from '../../src/shared/activity.js';
import { ROOT, cleanupBridges, startBridge, waitFor, type BridgeProcess } from '../helpers/bridgeProcess.js';
import { fixtureEntry } from '../helpers/proxyCli.js';
import { FIXTURES } from '../helpers/paths.js';
import { launchPanelBrowser, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';

const BASIC = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-basic-vanillajs', 'dist', 'index.js');
const NOTES = join(FIXTURES, 'appView', 'appViewServer.mjs');
const MONITOR = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-system-monitor', 'dist', 'index.js');

let bridge: BridgeProcess;
let chrome: PanelBrowser | undefined;
let panel: PanelPage;
let page: Page;
let agent: Client;
let dir: string;
/** Two origins a view may try to fetch: its CSP allows the first only. */
let allowed: Server;
let forbidden: Server;
const hits = { allowed: 0, forbidden: 0 };

const origin = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
const ran = () =>
  existsSync(join(dir, 'ran.txt')) ? readFileSync(join(dir, 'ran.txt'), 'utf8').split('\n').filter(Boolean) : [];

async function records(): Promise<ActivityRecord[]> {
  return ((await (await bridge.fetch('/activity?limit=500')).json()) as ActivityPage).records;
}

function listen(count: keyof typeof hits): Promise<Server> {
  const s = createServer((_req, res) => {
    hits[count]++;
    res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'text/plain' }).end(count);
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

const activity = () => page.getByRole('dialog', { name: 'Activity' });

/** Opens the Activity view's details of the latest call of `name`, then its view; answers the view's frame. */
async function openApp(name: string, title: string): Promise<{ outer: FrameLocator; view: FrameLocator }> {
  if (!(await activity().isVisible())) await page.getByRole('button', { name: 'Activity', exact: true }).click();
  const row = activity().getByRole('table', { name: 'Calls' }).locator('tbody tr', { hasText: name }).first();
  await row.click();
  await activity().getByRole('button', { name: 'Open app' }).click();
  const outer = page.frameLocator(`iframe[title="${title}"]`);
  return { outer, view: outer.frameLocator('iframe') };
}

/** The view's own frame (the inner one, inside the sandbox page). */
function viewFrame(): Frame {
  const f = page.frames().find((x) => x.url() === 'about:srcdoc');
  if (!f)
    throw new Error(
      `no view frame among ${page
        .frames()
        .map((x) => x.url())
        .join(', ')}`,
    );
  return f;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'panel-apps-'));
  allowed = await listen('allowed');
  forbidden = await listen('forbidden');
  bridge = await startBridge({
    config: {
      approval: { other: 'allow' },
      mcpServers: {
        basic: { command: process.execPath, args: [BASIC, '--stdio'] },
        notes: {
          command: process.execPath,
          args: [NOTES, '--ran', join(dir, 'ran.txt'), '--connect', origin(allowed)],
          approval: { declared: 'deny' },
        },
        other: fixtureEntry('other'),
        monitor: { command: process.execPath, args: [MONITOR, '--stdio'] },
      },
    },
  });
  agent = new Client({ name: 'apps-agent', version: '1.0.0' });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), { requestInit: { headers: bridge.auth } }),
  );
  chrome = await launchPanelBrowser();
  panel = await chrome.newPage({ viewport: { width: 1300, height: 1000 }, colorScheme: 'light' });
  page = panel.page;
  await page.goto(`${bridge.url}/#token=${bridge.bearer}`);
  await page.getByRole('region', { name: 'notes', exact: true }).waitFor();
}, 120_000);

afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await chrome?.close();
  await cleanupBridges();
  allowed?.close();
  forbidden?.close();
  rmSync(dir, { recursive: true, force: true });
}, 40_000);

describe('MCP Apps views in the panel', () => {
  it("shows get-time's view of server-basic-vanillajs, whose button fetches the time again through the bridge", async () => {
    const r = await agent.callTool({ name: 'basic__get-time', arguments: {} });
    const first = (r.structuredContent as { time: string }).time;
    const record = await waitFor(
      async () => (await records()).find((x) => x.name === 'basic__get-time' && x.app?.view),
      15_000,
      'the call recorded with its view',
    );
    expect(record.app?.resourceUri).toBe('ui://get-time/mcp-app.html');
    const { outer, view } = await openApp('basic__get-time', 'App: basic get-time');
    await expect.poll(() => view.locator('#server-time').textContent(), { timeout: 15_000 }).toBe(first);
    if (process.env.UPDATE_SCREENSHOTS === '1')
      await activity().screenshot({ path: join(ROOT, 'docs', 'screenshots', 'mcp-app-view.png') });
    await view.locator('#get-time-btn').click();
    await expect.poll(() => view.locator('#server-time').textContent(), { timeout: 15_000 }).not.toBe(first);
    // The view's call went through the bridge, recorded under a client that names the view.
    const again = await waitFor(
      async () => (await records()).find((x) => x.client === 'app view basic get-time' && x.method === 'tools/call'),
      15_000,
      "the view's call in /activity",
    );
    expect(again).toMatchObject({ server: 'basic', name: 'get-time', outcome: 'ok' });
    // The frame is on the bridge's sandbox origin, not the page's.
    const sandbox = page.frames().find((f) => f.url().includes('/sandbox.html'))!;
    expect(new URL(sandbox.url()).origin).not.toBe(new URL(page.url()).origin);
    expect(await outer.locator('body').count()).toBe(1);
    expect(panel.errors).toEqual([]);
  }, 90_000);

  it("renders the fixture's view with the call's input and result; its app-only tool is the view's alone", async () => {
    const names = (await agent.listTools()).tools.map((t) => t.name);
    expect(names).toContain('notes__show_note');
    expect(names).not.toContain('notes__app_refresh');
    await agent.callTool({ name: 'notes__show_note', arguments: { text: 'hello view' } });
    await page
      .getByRole('dialog', { name: 'Activity' })
      .getByRole('button', { name: 'Close' })
      .click()
      .catch(() => undefined);
    const { view } = await openApp('notes__show_note', 'App: notes show_note');
    await expect
      .poll(() => view.locator('#input').textContent(), { timeout: 15_000 })
      .toBe('input: {"text":"hello view"}');
    await expect.poll(() => view.locator('#result').textContent()).toBe('result: note: hello view');
    await view.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => view.locator('#refreshed').textContent(), { timeout: 15_000 }).toBe('refreshed 1');
    expect(ran()).toEqual(['show_note', 'app_refresh']);
    const rec = await waitFor(
      async () => (await records()).find((x) => x.client === 'app view notes show_note' && x.name === 'app_refresh'),
      15_000,
      "the view's call of app_refresh in /activity",
    );
    expect(rec.outcome).toBe('ok');
  }, 90_000);

  it('keeps a view from the top page, popups, other servers and origins outside its CSP', async () => {
    const frame = viewFrame();
    // Another server's tool: the view's session is its own server's only.
    const otherTool = (await frame.evaluate(() =>
      (window as unknown as { viewRequest: (m: string, p: unknown) => Promise<unknown> }).viewRequest('tools/call', {
        name: 'other__echo',
        arguments: { text: 'x' },
      }),
    )) as { error?: { message: string }; result?: { isError?: boolean } };
    expect(otherTool.error?.message ?? '').toMatch(/Unknown tool|not found|other__echo/);
    // Its own server's tools go through the approval policy like an agent's: denied, recorded so.
    const denied = (await frame.evaluate(() =>
      (window as unknown as { viewRequest: (m: string, p: unknown) => Promise<unknown> }).viewRequest('tools/call', {
        name: 'declared',
        arguments: {},
      }),
    )) as { result?: { isError?: boolean } };
    expect(denied.result?.isError).toBe(true);
    const refused = await waitFor(
      async () => (await records()).find((x) => x.client === 'app view notes show_note' && x.name === 'declared'),
      15_000,
      "the view's denied call in /activity",
    );
    expect(refused.outcome).toBe('denied');
    // A popup: no allow-popups anywhere.
    expect(await frame.evaluate(() => window.open('about:blank') === null)).toBe(true);
    // The top page: no allow-top-navigation.
    const before = page.url();
    await frame.evaluate(() => {
      try {
        window.top!.location.href = 'about:blank#escaped';
      } catch {
        // blocked: what is expected
      }
    });
    expect(page.url()).toBe(before);
    // The network: its CSP allows the one origin its resource declared.
    const fetched = await frame.evaluate(
      async ([ok, no]) => {
        const get = (u: string) =>
          fetch(u).then(
            (r) => r.text(),
            () => 'blocked',
          );
        return [await get(ok!), await get(no!)];
      },
      [origin(allowed), origin(forbidden)],
    );
    expect(fetched).toEqual(['allowed', 'blocked']);
    expect(hits.forbidden).toBe(0);
    // The agent still cannot call the app-only tool.
    expect((await agent.callTool({ name: 'notes__app_refresh', arguments: {} })).isError).toBe(true);
    expect(ran()).toEqual(['show_note', 'app_refresh']);
  }, 90_000);

  it("shows server-system-monitor's view, whose polling calls its app-only tool through the bridge", async () => {
    const names = (await agent.listTools()).tools.map((t) => t.name);
    expect(names).toContain('monitor__get-system-info');
    expect(names).not.toContain('monitor__poll-system-stats');
    await agent.callTool({ name: 'monitor__get-system-info', arguments: {} });
    await page
      .getByRole('dialog', { name: 'Activity' })
      .getByRole('button', { name: 'Close' })
      .click()
      .catch(() => undefined);
    const { view } = await openApp('monitor__get-system-info', 'App: monitor get-system-info');
    await expect.poll(() => view.locator('#info-hostname').textContent(), { timeout: 15_000 }).toBe(hostname());
    await view.locator('#poll-toggle-btn').click();
    const polled = await waitFor(
      async () =>
        (await records()).find(
          (x) => x.client === 'app view monitor get-system-info' && x.name === 'poll-system-stats',
        ),
      15_000,
      "the view's poll in /activity",
    );
    expect(polled.outcome).toBe('ok');
  }, 90_000);
});
