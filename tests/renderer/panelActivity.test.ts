// The panel's Activity view in real Chromium against a real bridge: calls made over /mcp and
// /mcp/<id> (ok, slow, timed out, a tool's own failure, failed) are listed from /activity,
// narrowed by the filters, shown in the detail pane and in each server's latency chart; a
// card's Calls opens the view filtered to that server; a call made while the view is open
// appears without a reload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Locator, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ActivityPage, ActivityRecord } from '../../src/shared/activity.js';
import { ROOT, cleanupBridges, startBridge, waitFor, type BridgeProcess } from '../helpers/bridgeProcess.js';
import { fixtureEntry } from '../helpers/proxyCli.js';
import { launchPanelBrowser, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';

let bridge: BridgeProcess;
let chrome: PanelBrowser | undefined;
let panel: PanelPage;
let page: Page;
let agent: Client;
let other: Client;
let shots: string;
/** The query of each `/activity` page the panel asked for. */
const pages: URLSearchParams[] = [];

async function connect(path: string, name: string): Promise<Client> {
  const c = new Client({ name, version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${bridge.url}${path}`), { requestInit: { headers: bridge.auth } }),
  );
  return c;
}

async function records(): Promise<ActivityRecord[]> {
  return ((await (await bridge.fetch('/activity?limit=500')).json()) as ActivityPage).records;
}

const view = () => page.getByRole('dialog', { name: 'Activity' });
const rows = () => view().getByRole('table', { name: 'Calls' }).locator('tbody tr');

/** The text of each cell of each shown row, newest first. */
async function table(): Promise<string[][]> {
  return rows().evaluateAll((trs) =>
    trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? '')),
  );
}

/** Waits until the table's rows satisfy `ok`; answers them. */
async function rowsWhere(ok: (r: string[][]) => boolean, what: string): Promise<string[][]> {
  let last: string[][] = [];
  return waitFor(
    async () => {
      last = await table();
      return ok(last) ? last : undefined;
    },
    15_000,
    () => `${what}; rows: ${JSON.stringify(last)}`,
  );
}

const COL = { time: 0, agent: 1, server: 2, method: 3, name: 4, duration: 5, outcome: 6 };
const calls = (r: string[][]) => r.filter((c) => c[COL.method] === 'tools/call' || c[COL.method] === 'prompts/get');

/** Nearest-rank percentile, as the bridge's health figures take it. */
function nearestRank(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
}

async function select(label: string, option: string, within: Locator = view()): Promise<void> {
  await within.getByLabel(label, { exact: true }).selectOption({ label: option });
}

beforeAll(async () => {
  shots = mkdtempSync(join(tmpdir(), 'panel-activity-shots-'));
  bridge = await startBridge({
    config: {
      mcpServers: {
        alpha: { ...fixtureEntry('alpha'), toolTimeouts: { slow: 1500 } },
        beta: { ...fixtureEntry('beta'), capture: true },
      },
    },
  });
  agent = await connect('/mcp', 'panel-agent');
  other = await connect('/mcp/beta', 'other-agent');
  await agent.callTool({ name: 'alpha__echo', arguments: { text: 'one' } });
  await agent.callTool({ name: 'alpha__echo', arguments: { text: 'two' } });
  await agent.callTool({ name: 'alpha__slow', arguments: { ms: 400, steps: 1 } });
  await expect(agent.callTool({ name: 'alpha__slow', arguments: { ms: 60_000, steps: 1 } })).rejects.toThrow(
    /timed out/,
  );
  // Without its `text` the tool fails: its server answers a result with `isError: true`.
  expect((await agent.callTool({ name: 'alpha__echo', arguments: {} })).isError).toBe(true);
  await expect(other.getPrompt({ name: 'nosuch' })).rejects.toThrow();
  await other.callTool({ name: 'echo', arguments: { text: 'three' } });

  chrome = await launchPanelBrowser();
  panel = await chrome.newPage({
    viewport: { width: 1300, height: 900 },
    colorScheme: 'light',
  });
  page = panel.page;
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/activity') pages.push(new URL(r.url()).searchParams);
  });
  await page.goto(`${bridge.url}/#token=${bridge.bearer}`);
  await page.getByRole('region', { name: 'beta', exact: true }).waitFor();
}, 90_000);

afterAll(async () => {
  expect(panel?.errors ?? []).toEqual([]);
  await agent?.close().catch(() => undefined);
  await other?.close().catch(() => undefined);
  await chrome?.close();
  await cleanupBridges();
  rmSync(shots, { recursive: true, force: true });
}, 40_000);

describe('the Activity view', () => {
  it('lists the calls newest first with agent, server, method, name, duration and outcome', async () => {
    await page.getByRole('button', { name: 'Activity', exact: true }).click();
    await view().waitFor();
    const shown = await rowsWhere((r) => calls(r).length === 7, 'the seven calls');
    expect(calls(shown).map((c) => [c[COL.agent], c[COL.server], c[COL.name], c[COL.outcome]])).toEqual([
      ['other-agent', 'beta', 'echo', 'OK'],
      ['other-agent', 'beta', 'nosuch', expect.stringMatching(/^Error -32\d{3}$/)],
      ['panel-agent', 'alpha', 'alpha__echo', 'Tool error'],
      ['panel-agent', 'alpha', 'alpha__slow', 'Timed out'],
      ['panel-agent', 'alpha', 'alpha__slow', 'OK'],
      ['panel-agent', 'alpha', 'alpha__echo', 'OK'],
      ['panel-agent', 'alpha', 'alpha__echo', 'OK'],
    ]);
    // The log's own records, in the same order, with the durations as the table writes them.
    const log = (await records()).filter((r) => r.method === 'tools/call' || r.method === 'prompts/get');
    expect(calls(shown).map((c) => c[COL.duration])).toEqual(
      log.map((r) => (r.durationMs >= 1000 ? `${(r.durationMs / 1000).toFixed(1)} s` : expect.stringMatching(/ ms$/))),
    );
    expect(shown.length).toBe((await records()).length);
    // A tool error is shown as a failure, as a timeout is; an OK call is not.
    const colour = (outcome: string) =>
      rows()
        .filter({ has: page.getByRole('cell', { name: outcome, exact: true }) })
        .first()
        .locator('.call-outcome')
        .evaluate((td) => getComputedStyle(td).color);
    expect(await colour('Tool error')).toBe(await colour('Timed out'));
    expect(await colour('Tool error')).not.toBe(await colour('OK'));
  });

  it('narrows the table by server, agent, outcome and text', async () => {
    await select('Server', 'beta');
    let shown = await rowsWhere((r) => r.length > 0 && r.every((c) => c[COL.server] === 'beta'), 'only beta');
    expect(calls(shown).map((c) => c[COL.name])).toEqual(['echo', 'nosuch']);
    await select('Server', 'All servers');
    await select('Outcome', 'Timed out');
    shown = await rowsWhere((r) => r.length === 1, 'only the timed out call');
    expect(shown[0]!.slice(COL.server, COL.name + 1)).toEqual(['alpha', 'tools/call', 'alpha__slow']);
    await select('Outcome', 'Tool error');
    shown = await rowsWhere((r) => r.length === 1 && r[0]![COL.outcome] === 'Tool error', 'only the tool error');
    expect(shown[0]!.slice(COL.server, COL.name + 1)).toEqual(['alpha', 'tools/call', 'alpha__echo']);
    await select('Outcome', 'Any outcome');
    await select('Agent', 'other-agent');
    shown = await rowsWhere((r) => r.length > 0 && r.every((c) => c[COL.agent] === 'other-agent'), 'other-agent');
    expect(shown.some((c) => c[COL.method] === 'initialize')).toBe(true);
    await select('Agent', 'All agents');
    // The text goes to the log once typing pauses.
    const textPage = page.waitForRequest((r) => new URL(r.url()).searchParams.get('text') === 'echo');
    await view().getByLabel('Search calls').fill('echo');
    await textPage;
    shown = await rowsWhere((r) => r.length === 4, 'the four echo calls');
    expect(shown.map((c) => c[COL.name])).toEqual(['echo', 'alpha__echo', 'alpha__echo', 'alpha__echo']);
    await view().getByLabel('Search calls').fill('');
    await rowsWhere((r) => calls(r).length === 7, 'every call again');
    // Each filter also went to the log's own page: a call older than the view holds would be found.
    const asked = pages.map((p) => p.toString());
    for (const q of ['server=beta', 'outcome=timeout', 'outcome=tool-error', 'client=other-agent', 'text=echo'])
      expect(asked.some((a) => a.includes(q))).toBe(true);
  });

  it('shows every recorded field of the selected call in the detail pane', async () => {
    const failed = (await records()).find((r) => r.name === 'nosuch')!;
    // The table drawn again (a filter set and cleared, each with its page from the log, as a
    // reconnect does) keeps the row of each call it still shows: a row under the pointer is
    // never swapped for another while it is clicked.
    const row = await rows().filter({ hasText: 'nosuch' }).elementHandle();
    await select('Server', 'beta');
    await rowsWhere((r) => r.length > 0 && r.every((c) => c[COL.server] === 'beta'), 'only beta');
    await select('Server', 'All servers');
    await rowsWhere((r) => calls(r).length === 7, 'every call again');
    expect(await row!.evaluate((tr) => tr.isConnected)).toBe(true);
    await rows().filter({ hasText: 'nosuch' }).getByRole('button').click();
    const pane = view().getByRole('region', { name: 'Call details' });
    await pane.getByRole('heading', { name: 'prompts/get nosuch' }).waitFor();
    const fields = await pane
      .locator('.call-field')
      .evaluateAll((fs) => fs.map((f) => [f.querySelector('dt')!.textContent, f.querySelector('dd')!.textContent]));
    expect(Object.fromEntries(fields)).toMatchObject({
      Time: failed.at,
      Agent: 'other-agent',
      Session: String(failed.session),
      Server: 'beta',
      Method: 'prompts/get',
      Name: 'nosuch',
      Outcome: 'Error',
      'Error code': String(failed.error!.code),
      'Error message': failed.error!.message,
      Progress: '0',
      Number: String(failed.seq),
    });
    expect(await rows().filter({ hasText: 'nosuch' }).getAttribute('aria-selected')).toBe('true');
    // beta captures its values: its echo call's arguments and result are shown; alpha's are not recorded.
    const echo = (await records()).find((r) => r.server === 'beta' && r.name === 'echo')!;
    expect(echo.captured?.params).toContain('three');
    // The newest alpha__echo is the one that failed as a tool: its outcome says so, with no JSON-RPC error.
    await rows().filter({ hasText: 'alpha__echo' }).first().getByRole('button').click();
    await pane.getByRole('heading', { name: 'tools/call alpha__echo' }).waitFor();
    expect(await pane.locator('.call-field', { hasText: 'Outcome' }).locator('dd').textContent()).toBe('Tool error');
    expect(await pane.locator('.call-field', { hasText: 'Error code' }).count()).toBe(0);
    expect(await pane.getByRole('heading', { name: /^Captured/ }).count()).toBe(0);
    await rows()
      .filter({ has: page.getByRole('cell', { name: 'echo', exact: true }) })
      .getByRole('button')
      .click();
    await pane.getByRole('heading', { name: 'tools/call echo' }).waitFor();
    expect(await pane.getByLabel('Captured arguments').textContent()).toBe(echo.captured!.params);
    expect(await pane.getByLabel('Captured result').textContent()).toBe(echo.captured!.result);
  });

  it('draws each server a p50/p95 chart of the last minutes with its error rate', async () => {
    const alpha = (await records()).filter((r) => r.server === 'alpha');
    const chart = view().getByRole('region', { name: 'Latency of alpha' });
    const failedCount = alpha.filter((r) => r.outcome !== 'ok' && r.outcome !== 'cancelled').length;
    const summary = await waitFor(
      async () => {
        const t = (await chart.locator('.latency-summary').textContent()) ?? '';
        return t.startsWith(`${alpha.length} calls`) ? t : undefined;
      },
      15_000,
      'the summary of alpha',
    );
    // The timed out call is the slowest of alpha's: its p95, above its 1.5 s timeout.
    const p95 = nearestRank(
      alpha.map((r) => r.durationMs),
      0.95,
    );
    expect(p95).toBeGreaterThanOrEqual(1500);
    expect(summary).toContain(`error rate ${Math.round((failedCount / alpha.length) * 100)}% (${failedCount})`);
    expect(summary).toContain(`p95 ${(p95 / 1000).toFixed(1)} s`);
    const svg = chart.getByRole('img');
    expect(await svg.getAttribute('aria-label')).toContain(summary);
    expect(await svg.locator('path.latency-p50').count()).toBe(1);
    expect(await svg.locator('path.latency-p95').count()).toBe(1);
    // One titled group per minute with calls; together they count every call of alpha.
    const titles = await svg.locator('g.latency-minute > title').allTextContents();
    expect(titles.length).toBeGreaterThan(0);
    const counted = titles.map((t) => Number(/: (\d+) calls?,/.exec(t)![1])).reduce((a, b) => a + b, 0);
    expect(counted).toBe(alpha.length);
    expect(titles.join('\n')).toMatch(/p95 1\.\d s/);
    expect(await svg.locator('rect.latency-errors').count()).toBeGreaterThan(0);
    expect(await view().getByRole('region', { name: 'Latency of beta' }).count()).toBe(1);
    await page.mouse.move(0, 0); // no row under the pointer's hover colour
    await view().screenshot({ path: join(shots, 'activity.png') });
    if (process.env.UPDATE_SCREENSHOTS === '1')
      await view().screenshot({ path: join(ROOT, 'docs', 'screenshots', 'panel-activity.png') });
  });

  it("opens from a card's Calls filtered to that server, and shows a new call without a reload", async () => {
    if ((await view().count()) > 0) await view().getByRole('button', { name: 'Close' }).click();
    await view().waitFor({ state: 'detached' });
    await page.getByRole('region', { name: 'beta', exact: true }).screenshot({ path: join(shots, 'card.png') });
    await page.getByRole('button', { name: 'Calls of beta' }).click();
    expect(await view().getByLabel('Server', { exact: true }).inputValue()).toBe('beta');
    await rowsWhere((r) => calls(r).length === 2 && r.every((c) => c[COL.server] === 'beta'), 'beta only');
    expect(
      await view()
        .getByRole('region', { name: /^Latency of / })
        .count(),
    ).toBe(1);
    await view().getByRole('status').filter({ hasText: 'Live' }).waitFor();

    // A call to alpha does not pass the filter; the beta call made after it does, and comes
    // after it on the stream: its row proves the alpha one was left out, not late.
    await agent.callTool({ name: 'alpha__whoami', arguments: {} });
    await other.callTool({ name: 'whoami', arguments: {} });
    const shown = await rowsWhere((r) => r[0]?.[COL.name] === 'whoami', 'the live beta call on top');
    expect(shown.some((c) => c[COL.name] === 'alpha__whoami')).toBe(false);
    expect(shown[0]!.slice(COL.agent, COL.outcome + 1)).toEqual([
      'other-agent',
      'beta',
      'tools/call',
      'whoami',
      expect.stringMatching(/ms$/),
      'OK',
    ]);
    await select('Server', 'All servers');
    await rowsWhere((r) => r.some((c) => c[COL.name] === 'alpha__whoami'), 'the alpha call once unfiltered');
    await page.screenshot({ path: join(shots, 'page.png') });
  });
});
