// The panel behaviours that statusPanel.test.ts and connection.test.ts show against a
// stand-in server, shown here once more against the real bridge (dist/proxy serving
// dist/renderer): the token only as a Bearer header, a refused or missing token, a reload,
// the CSP header doing its work, server-controlled text rendered as text, the uptime tick,
// a live change keeping open and focused state, one POST per Restart however often it is
// pressed, Restart by keyboard, and the bridge going away and coming back (here with no
// servers: the empty state).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  cleanupBridges,
  memoryEntry,
  startBridge,
  tempDir,
  waitFor,
  type BridgeProcess,
} from '../helpers/bridgeProcess.js';
import { launchPanelBrowser, nonNetworkErrors, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';

// A command name that is markup: it comes back in the server's last error.
const EVIL_COMMAND = '<img src=x onerror="window.pwned=1">';
/** How long a test watches for a retry that must not come: four times the panel's first backoff (500 ms). */
const NO_RETRY_WINDOW_MS = 2000;

let bridge: BridgeProcess;
let chrome: PanelBrowser | undefined;
const pages: PanelPage[] = [];

interface Seen {
  method: string;
  url: string;
  authorization?: string;
}

/** A fresh page (own sessionStorage) that records every request it makes. */
async function openPage(url: string): Promise<{ page: Page; requests: Seen[]; errors: string[] }> {
  const p = await chrome!.newPage({ viewport: { width: 1200, height: 800 } });
  pages.push(p);
  const requests: Seen[] = [];
  p.page.on('request', (r) =>
    requests.push({ method: r.method(), url: r.url(), authorization: r.headers()['authorization'] }),
  );
  await p.page.goto(url);
  return { page: p.page, requests, errors: p.errors };
}

const card = (page: Page, id: string) => page.locator(`li.server[data-server-id="${id}"]`);
const fact = (page: Page, id: string, label: string) =>
  card(page, id)
    .locator('.fact', { has: page.locator('dt', { hasText: label }) })
    .locator('dd')
    .textContent();
const paths = (requests: Seen[]) => requests.map((r) => new URL(r.url).pathname);
const waitText = (page: Page, selector: string, pattern: RegExp, timeout = 15_000) =>
  page.waitForFunction(
    ([sel, src]) => {
      const node = document.querySelector(sel as string) as HTMLElement | null;
      return !!node && !node.closest('[hidden]') && new RegExp(src as string).test(node.textContent ?? '');
    },
    [selector, pattern.source],
    { timeout },
  );

beforeAll(async () => {
  const dir = tempDir('panel-real-more-');
  bridge = await startBridge({ config: { mcpServers: { memory: memoryEntry(dir), evil: { command: EVIL_COMMAND } } } });
  chrome = await launchPanelBrowser();
}, 45_000);

afterAll(async () => {
  for (const p of pages.splice(0)) await p.context.close();
  await chrome?.close();
  await cleanupBridges();
}, 40_000);

describe('status panel against the real bridge, the stand-in tests once more', () => {
  it('without a token says how to open the panel and opens no event stream', async () => {
    const { page, requests, errors } = await openPage(`${bridge.url}/`);
    await waitText(page, '.banner-detail', /No access token/);
    // No event stream is tried; the page itself (and its first /status) did reach the bridge.
    expect(paths(requests).filter((p) => p === '/events')).toEqual([]);
    expect(paths(requests)).toEqual(expect.arrayContaining(['/', '/status']));
    expect(nonNetworkErrors(errors)).toEqual([]);
  });

  it('reports a refused token as down and does not retry it', async () => {
    const { page, requests } = await openPage(`${bridge.url}/#token=not-the-token`);
    await waitText(page, '.banner-title', /cannot be reached/);
    expect(await page.locator('.banner-detail').textContent()).toMatch(/refused the access token/);
    await page.waitForTimeout(NO_RETRY_WINDOW_MS);
    const asked = requests.filter((r) => new URL(r.url).pathname === '/events');
    expect(asked.length).toBe(1);
    expect(asked[0]!.authorization).toBe('Bearer not-the-token');
  });

  it('sends the token only as a Bearer header, keeps it out of the URL, also after a reload; the CSP header is enforced', async () => {
    const { page, requests, errors } = await openPage(`${bridge.url}/#token=${bridge.bearer}`);
    await card(page, 'memory').waitFor();
    await page.waitForFunction(() => document.querySelector('.bridge-state')?.textContent === 'Ready');
    expect(page.url()).toBe(`${bridge.url}/`);
    await page.reload();
    await card(page, 'memory').waitFor();
    await page.waitForFunction(() => document.querySelector('.bridge-state')?.textContent === 'Ready');
    expect(page.url()).toBe(`${bridge.url}/`);
    const api = requests.filter((r) => ['/status', '/events'].includes(new URL(r.url).pathname));
    expect(api.filter((r) => new URL(r.url).pathname === '/events').length).toBe(2); // one per load
    for (const r of api) expect(r.authorization).toBe(`Bearer ${bridge.bearer}`);
    for (const r of requests) expect(new URL(r.url).pathname + new URL(r.url).search).not.toContain(bridge.bearer);
    expect(nonNetworkErrors(errors)).toEqual([]);
    // The real bridge's Content-Security-Policy refuses an inline style.
    await page.evaluate(() => {
      const style = document.createElement('style');
      style.textContent = 'body { color: red }';
      document.head.append(style);
    });
    await waitFor(
      () => errors.some((e) => /Content Security Policy/.test(e)),
      5000,
      'the CSP violation on the console',
    );
  });

  it('renders a last error that is markup as text', async () => {
    const { page } = await openPage(`${bridge.url}/#token=${bridge.bearer}`);
    await waitText(page, 'li.server[data-server-id="evil"] .last-error-text', /not found/, 20_000);
    const shown = await card(page, 'evil').locator('.last-error-text').textContent();
    expect(shown).toContain(EVIL_COMMAND);
    expect(shown).toBe((await bridge.server('evil')).lastError);
    expect(
      await page.evaluate(() => ({
        imgs: document.querySelectorAll('img').length,
        pwned: (window as unknown as { pwned?: number }).pwned,
      })),
    ).toEqual({
      imgs: 0,
      pwned: undefined,
    });
  }, 30_000);

  it('ticks the uptime of a ready server with no new status', async () => {
    const { page } = await openPage(`${bridge.url}/#token=${bridge.bearer}`);
    await card(page, 'memory').waitFor();
    const first = await fact(page, 'memory', 'Uptime');
    expect(first).toMatch(/^\d/);
    await waitFor(async () => (await fact(page, 'memory', 'Uptime')) !== first, 5000, 'the uptime to tick');
  });

  it('a live change (SIGKILL, restarting, ready) keeps the card node, its open tool list and the focus; Restart pressed thrice while pending posts once', async () => {
    const { page, requests } = await openPage(`${bridge.url}/#token=${bridge.bearer}`);
    await page.waitForFunction(
      () => document.querySelector('li.server[data-server-id="memory"] .badge-text')?.textContent === 'Ready',
    );
    const mem = card(page, 'memory');
    await mem.locator('details.tools summary').click();
    await mem.locator('button.restart').focus();
    await page.evaluate(() => {
      (document.querySelector('li.server[data-server-id="memory"]') as unknown as { tag: string }).tag = 'same node';
    });
    const before = await bridge.server('memory');
    process.kill(before.pid!, 'SIGKILL');
    await waitFor(
      async () => (await fact(page, 'memory', 'PID')) !== String(before.pid),
      20_000,
      'the card to leave the killed pid',
    );
    await waitFor(
      async () =>
        (await mem.locator('.badge-text').textContent()) === 'Ready' &&
        /^\d+$/.test((await fact(page, 'memory', 'PID')) ?? ''),
      20_000,
      'ready again',
    );
    const kept = await page.evaluate(() => {
      const li = document.querySelector('li.server[data-server-id="memory"]') as HTMLElement & { tag?: string };
      return {
        tag: li.tag,
        toolsOpen: (li.querySelector('details.tools') as HTMLDetailsElement).open,
        focused: document.activeElement === li.querySelector('button.restart'),
      };
    });
    expect(kept).toEqual({ tag: 'same node', toolsOpen: true, focused: true });
    // The live region names memory's change; the bridge's failing server may be announced beside it.
    expect(await page.locator('[aria-live="polite"]').textContent()).toMatch(
      /(^|\. )memory is now (Restarting|Starting|Ready)\.( |$)/,
    );

    // Restart clicked three times in one task: the second and third find the first pending
    // (the real bridge may answer the POST before a later Playwright click could land).
    const mid = await bridge.server('memory');
    await page.evaluate(() => {
      const b = document.querySelector('li.server[data-server-id="memory"] button.restart') as HTMLButtonElement;
      b.click();
      b.click();
      b.click();
    });
    await waitFor(
      async () =>
        (await bridge.server('memory')).restarts > mid.restarts && (await bridge.server('memory')).state === 'ready',
      25_000,
      'the restart',
    );
    await page.waitForFunction(
      () =>
        document.querySelector('li.server[data-server-id="memory"] button.restart')?.getAttribute('aria-disabled') ===
        'false',
    );
    expect(requests.filter((r) => r.method === 'POST').map((r) => [new URL(r.url).pathname, r.authorization])).toEqual([
      ['/servers/memory/restart', `Bearer ${bridge.bearer}`],
    ]);
    expect((await bridge.server('memory')).restarts).toBe(mid.restarts + 1);

    // By keyboard: focus and Enter send one more.
    await mem.locator('button.restart').focus();
    await page.keyboard.press('Enter');
    await waitFor(
      async () =>
        (await bridge.server('memory')).restarts === mid.restarts + 2 &&
        (await bridge.server('memory')).state === 'ready',
      25_000,
      'the keyboard restart',
    );
    expect(requests.filter((r) => r.method === 'POST').length).toBe(2);
  }, 80_000);

  it('shows reconnecting, then down with advice, and recovers when the bridge comes back (with no servers: the empty state)', async () => {
    const { page } = await openPage(`${bridge.url}/#token=${bridge.bearer}`);
    await card(page, 'memory').waitFor();
    const { port, bearer } = bridge;
    bridge.child.kill('SIGTERM');
    await bridge.waitExit(10_000);
    await waitText(page, '.banner-title', /Reconnecting/);
    expect(await page.locator('main').getAttribute('class')).toContain('stale');
    await waitText(page, '.banner-title', /cannot be reached/);
    expect(await page.locator('.banner-help').textContent()).toMatch(/Make sure the app is running/);
    expect(await page.locator('.bridge-state').textContent()).toBe('Unreachable');
    expect(await page.locator('li.server').count()).toBe(2); // the last known servers stay listed
    expect(await card(page, 'memory').locator('button.restart').getAttribute('aria-disabled')).toBe('true');

    bridge = await startBridge({ config: { mcpServers: {} }, port, token: bearer });
    await page.locator('.empty').waitFor({ timeout: 15_000 });
    await page.locator('.banner').waitFor({ state: 'hidden' });
    expect(await page.locator('.empty').textContent()).toContain('No MCP servers configured');
    expect(await page.locator('li.server').count()).toBe(0);
    expect(await page.locator('.bridge-state').textContent()).toBe('Ready');
    expect(await page.locator('main').getAttribute('class')).not.toContain('stale');
  }, 60_000);
});
