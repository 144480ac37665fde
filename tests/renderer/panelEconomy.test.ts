// The tool economy in the status panel, in real Chromium against the real bridge (dist/proxy
// serving dist/renderer) with real servers (everything, filesystem, memory kept listed with
// "expose": "always") whose tools weigh more than the configured toolBudgetTokens, so the
// aggregate lists by search. Each card shows its tool count and weight, the top line the mode
// in force and why, the total and the servers kept listed; a real MCP client on the bridge's
// /mcp runs search_tools and the panel shows, live and in place, the tools its session loaded,
// until the session ends. The layout holds at 1200 px and at a side panel's 400 px; with
// UPDATE_SCREENSHOTS=1 the wide view goes to docs/screenshots/tool-economy.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  FILESYSTEM_SERVER,
  ROOT,
  cleanupBridges,
  everythingEntry,
  memoryEntry,
  nodeEntry,
  startBridge,
  tempDir,
  waitFor,
  type BridgeProcess,
} from '../helpers/bridgeProcess.js';
import { launchPanelBrowser, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';
import type { RuntimeStatus } from '../../src/shared/status.js';

const update = process.env.UPDATE_SCREENSHOTS === '1';
// Below what the three servers' tools weigh, whatever the calibration of the estimate.
const BUDGET = 3000;
const IDS = ['everything', 'filesystem', 'memory'];
const AGENT = 'panel-test-agent';

let bridge: BridgeProcess;
let chrome: PanelBrowser | undefined;
let panel: PanelPage | undefined;
let page: Page;
let shots: string;

const card = (id: string) => page.locator(`li.server[data-server-id="${id}"]`);
const text = (selector: string) => page.locator(selector).textContent();
/** `~7.9k` for 7943, `~950` for 950: what these servers weigh (below 100k tokens). */
const approx = (tokens: number) => {
  expect(tokens).toBeLessThan(99_950);
  return tokens < 999.5 ? `~${Math.round(tokens)}` : `~${(tokens / 1000).toFixed(1).replace(/\.0$/, '')}k`;
};
/** Tool names per session row, as the page shows them. */
const sessionRows = () =>
  page.locator('li.economy-session').evaluateAll((rows) =>
    rows.map((r) => ({
      head: r.querySelector('.economy-session-head')!.textContent,
      tools: Array.from(r.querySelectorAll('.economy-tool code')).map((c) => c.textContent),
    })),
  );

beforeAll(async () => {
  const dir = tempDir('panel-economy-');
  const files = join(dir, 'files');
  mkdirSync(files);
  shots = tempDir('panel-economy-shot-');
  bridge = await startBridge({
    config: {
      toolBudgetTokens: BUDGET,
      mcpServers: {
        everything: everythingEntry(),
        filesystem: nodeEntry(FILESYSTEM_SERVER, [files]),
        memory: { ...memoryEntry(dir), expose: 'always' },
      },
    },
  });
  chrome = await launchPanelBrowser();
  panel = await chrome.newPage({ viewport: { width: 1200, height: 800 } });
  page = panel.page;
}, 45_000);

afterAll(async () => {
  await panel?.context.close();
  await chrome?.close(); // throws if any Chromium process is left
  await cleanupBridges(); // stops the bridge, checks it and every server it reported are gone
}, 40_000);

describe('the tool economy in the status panel, against the real bridge', () => {
  let status: RuntimeStatus;

  it('shows each server’s tool count and token weight, the mode in force with its reason, the total', async () => {
    status = await bridge.status();
    const economy = status.economy!;
    // The servers' own tools push the merged list over the budget: auto turned tool search on.
    expect([economy.exposure, economy.inForce, economy.budgetTokens]).toEqual(['auto', 'search', BUDGET]);
    expect(economy.totalTokens).toBeGreaterThan(BUDGET);
    expect(economy.alwaysServers).toEqual(['memory']);
    expect(economy.sessions).toEqual([]);

    await page.goto(`${bridge.url}/#token=${bridge.bearer}`);
    await page.locator('section.economy').waitFor();
    for (const id of IDS) {
      const s = status.servers.find((x) => x.id === id)!;
      expect(s.state).toBe('ready');
      expect(s.toolCount).toBe(s.tools.length);
      const expected = `${s.tools.length} tools \u00b7 ${approx(s.toolTokens!)} tokens${id === 'memory' ? ' \u00b7 always listed' : ''}`;
      expect(await card(id).locator('details.tools summary').textContent()).toBe(expected);
    }
    expect(economy.totalTools).toBe(IDS.reduce((n, id) => n + status.servers.find((x) => x.id === id)!.toolCount!, 0));
    expect(await text('.economy-line')).toBe(
      `Tool search on (auto: ${approx(economy.totalTokens)} tokens over the 3k budget) \u00b7 ${economy.totalTools} tools from 3 servers \u00b7 always listed: memory`,
    );
    expect(await page.locator('section.economy').getAttribute('data-mode')).toBe('search');
    expect(await page.locator('.economy-none').isVisible()).toBe(true);
    expect(await text('.economy-none')).toBe('No agent session has loaded a tool by search yet.');
    expect(await page.locator('details.economy-sessions').isHidden()).toBe(true);
    expect(await page.getByRole('region', { name: 'Tool economy' }).count()).toBe(1);
  });

  it('a session that runs search_tools shows the tools it loaded, live and in place, until it ends', async () => {
    await page.evaluate(() => {
      Object.assign(window, { marker: 'same page' });
      (document.querySelector('section.economy') as unknown as { tag: string }).tag = 'same node';
    });
    const { client, transport } = await bridge.client('/mcp', { name: AGENT });
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).toEqual(expect.arrayContaining(['search_tools', 'call_tool', 'memory__read_graph']));
    expect(listed).not.toContain('filesystem__read_text_file');

    const search = async (query: string) => {
      const r = await client.callTool({ name: 'search_tools', arguments: { query, limit: 2 } });
      return (r.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
    };
    const found = await search('read the complete contents of a text file');
    expect(found).toContain('filesystem__read_text_file');
    const loadedNow = async (n: number) =>
      waitFor(
        async () => {
          const s = (await bridge.status()).economy!.sessions;
          return s.length === 1 && s[0]!.loaded.length >= n && s[0]!;
        },
        10_000,
        `the session with ${n} loaded tools in /status`,
      );
    const first = await loadedNow(found.length);
    expect(first.client).toBe(AGENT);
    expect(first.loaded).toEqual(found);
    await page.waitForFunction(
      (n) => document.querySelectorAll('li.economy-session .economy-tool').length === n,
      found.length,
    );
    expect(await sessionRows()).toEqual([
      { head: `${AGENT} \u00b7 session ${first.id} \u00b7 ${found.length} tools loaded`, tools: found },
    ]);
    expect(await text('details.economy-sessions > summary')).toBe(
      `Tools loaded by search: 1 agent session, ${found.length} tools`,
    );
    expect(await page.locator('details.economy-sessions').getAttribute('open')).toBe('');
    expect(await page.locator('.economy-none').isHidden()).toBe(true);

    // A second search adds to the same session: the same row, one more set of names.
    await page.evaluate(() => {
      (document.querySelector('li.economy-session') as unknown as { tag: string }).tag = 'same row';
    });
    const more = await search('echo a message back');
    const second = await loadedNow(new Set([...found, ...more]).size);
    await page.waitForFunction(
      (n) => document.querySelectorAll('li.economy-session .economy-tool').length === n,
      second.loaded.length,
    );
    expect((await sessionRows())[0]!.tools).toEqual(second.loaded);
    expect(
      await page.evaluate(() => ({
        page: (window as unknown as { marker?: string }).marker,
        section: (document.querySelector('section.economy') as unknown as { tag?: string }).tag,
        row: (document.querySelector('li.economy-session') as unknown as { tag?: string }).tag,
      })),
    ).toEqual({ page: 'same page', section: 'same node', row: 'same row' });

    await screenshots();

    // The session ends (DELETE): its row goes, the line says none has loaded anything.
    await (transport as StreamableHTTPClientTransport).terminateSession();
    await page.locator('li.economy-session').waitFor({ state: 'detached' });
    expect(await page.locator('.economy-none').isVisible()).toBe(true);
    expect((await bridge.status()).economy!.sessions).toEqual([]);
    expect(panel!.errors).toEqual([]);
  }, 30_000);
});

/** The page at 1200 and at 400 px: nothing wider than the window, the economy line inside it; screenshots. */
async function screenshots(): Promise<void> {
  for (const [width, height] of [
    [1200, 800],
    [400, 900],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.mouse.move(0, 0);
    const layout = await page.evaluate(() => {
      const box = (sel: string) => document.querySelector(sel)!.getBoundingClientRect();
      const section = document.querySelector('section.economy')!;
      return {
        scrollWidth: document.documentElement.scrollWidth,
        section: box('section.economy').right,
        overflow: section.scrollWidth - section.clientWidth,
        chips: Array.from(document.querySelectorAll('.economy-tool')).map((c) => c.getBoundingClientRect().right),
        cards: Array.from(document.querySelectorAll('.server-card')).map((c) => c.getBoundingClientRect().right),
      };
    });
    expect(layout.scrollWidth).toBeLessThanOrEqual(width);
    expect(layout.overflow).toBe(0);
    for (const right of [layout.section, ...layout.chips, ...layout.cards]) expect(right).toBeLessThanOrEqual(width);
    const file =
      width === 1200 && update
        ? join(ROOT, 'docs', 'screenshots', 'tool-economy.png')
        : join(shots, `economy-${width}.png`);
    await page.screenshot({ path: file, fullPage: width === 400 });
    expect(statSync(file).size).toBeGreaterThan(10_000);
  }
  await page.setViewportSize({ width: 1200, height: 800 });
}
