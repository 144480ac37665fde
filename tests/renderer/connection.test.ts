// The panel's link to the bridge in real Chromium: empty state, the bridge going away and
// coming back, a dropped event stream, and a missing or wrong token.
import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { panelForFile, nonNetworkErrors, type PanelPage } from '../helpers/panelBrowser.js';
import { startStatusHttpHarness, type StatusHttpHarness } from '../helpers/statusHttpHarness.js';
import { runtime, server } from '../helpers/sampleStatus.js';
import type { RuntimeStatus } from '../../src/shared/status.js';

const panel = panelForFile();
/** How long a test watches for a retry that must not come: four times the panel's first backoff (500 ms). */
const NO_RETRY_WINDOW_MS = 2000;
let harness: StatusHttpHarness | undefined;
let current: PanelPage | undefined;

afterEach(async () => {
  // Refused connections are expected here; anything else (CSP, exceptions) is not.
  const errors = nonNetworkErrors(current?.errors ?? []);
  await current?.context.close();
  await harness?.close();
  current = undefined;
  harness = undefined;
  expect(errors).toEqual([]);
});

async function open(
  status: RuntimeStatus,
  url?: (h: StatusHttpHarness) => string,
  snapshotOnConnect = true,
): Promise<Page> {
  harness = await startStatusHttpHarness({ staticDir: panel.dir, status, snapshotOnConnect });
  current = await panel.newPage();
  await current.page.goto(url ? url(harness) : harness.pageUrl);
  return current.page;
}

const waitText = (page: Page, selector: string, pattern: RegExp, timeout = 15_000) =>
  page.waitForFunction(
    ([sel, src]) => {
      const node = document.querySelector(sel as string) as HTMLElement | null;
      return !!node && !node.closest('[hidden]') && new RegExp(src as string).test(node.textContent ?? '');
    },
    [selector, pattern.source],
    { timeout },
  );

describe('status panel connection states', () => {
  it('says clearly that no servers are configured and what to do', async () => {
    const page = await open(runtime([]));
    await page.locator('.empty').waitFor();
    const text = await page.locator('.empty').textContent();
    expect(text).toContain('No MCP servers configured');
    expect(text).toContain('mcpServers');
    expect(await page.locator('li.server').count()).toBe(0);
    expect(await page.locator('.loading').isVisible()).toBe(false);
    expect(await page.locator('.progress-line').isVisible()).toBe(false);
    // The empty state goes away as soon as a server appears.
    harness!.setStatus(runtime([server('memory')]));
    await page.locator('li.server').waitFor();
    expect(await page.locator('.empty').isVisible()).toBe(false);
  });

  it('shows reconnecting, then down with advice, and recovers when the bridge comes back', async () => {
    const page = await open(runtime([server('memory', { pid: 11 })]));
    await page.locator('li.server').waitFor();
    expect(await page.locator('.banner').isVisible()).toBe(false);

    await harness!.goDown();
    await waitText(page, '.banner-title', /Reconnecting/);
    await waitText(page, '.bridge-state', /Reconnecting/);
    expect(await page.locator('main').getAttribute('class')).toContain('stale');
    // After a few failed attempts the panel says the bridge is down and what to do, and keeps trying.
    await waitText(page, '.banner-title', /cannot be reached/);
    expect(await page.locator('.banner-help').textContent()).toMatch(/Make sure the app is running/);
    expect(await page.locator('.banner-detail').textContent()).toMatch(/retrying in \d+ s/);
    expect(await page.locator('.bridge-state').textContent()).toBe('Unreachable');
    // The last known servers stay listed, and Restart is blocked while it cannot work.
    expect(await page.locator('li.server').count()).toBe(1);
    expect(await page.locator('button.restart').getAttribute('aria-disabled')).toBe('true');

    harness!.setStatus(runtime([server('memory', { pid: 12, restarts: 1 }), server('fetch', { transport: 'http' })]));
    await harness!.goUp();
    await page.locator('li.server[data-server-id="fetch"]').waitFor({ timeout: 15_000 });
    await page.locator('.banner').waitFor({ state: 'hidden' });
    expect(await page.locator('.bridge-state').textContent()).toBe('Ready');
    expect(await page.locator('main').getAttribute('class')).not.toContain('stale');
    expect(harness!.eventStreams()).toBe(1);
    expect(await page.locator('li.server[data-server-id="memory"] button.restart').getAttribute('aria-disabled')).toBe(
      'false',
    );
  });

  it('reconnects after the event stream ends and picks up changes made meanwhile', async () => {
    // The stand-in sends no snapshot on connect here, so the page must fetch /status itself.
    const page = await open(runtime([server('memory')]), undefined, false);
    await page.locator('li.server').waitFor();
    await page.waitForFunction(() => document.querySelector('.bridge-state')?.textContent === 'Ready');
    const eventsBefore = harness!.requests.filter((r) => r.path === '/events').length;
    harness!.dropEvents();
    harness!.setStatus(runtime([server('memory', { state: 'failed', lastError: 'crashed while nobody listened' })]));
    await waitText(page, '.last-error-text', /crashed while nobody listened/);
    expect(harness!.requests.filter((r) => r.path === '/events').length).toBe(eventsBefore + 1);
  });

  it('reports a refused token as down without retrying in a loop', async () => {
    const page = await open(runtime([server('memory')]), (h) => `${h.origin}/#token=not-the-token`);
    await waitText(page, '.banner-title', /cannot be reached/);
    expect(await page.locator('.banner-detail').textContent()).toMatch(/refused the access token/);
    await page.waitForTimeout(NO_RETRY_WINDOW_MS);
    expect(harness!.requests.filter((r) => r.path === '/events').length).toBe(1);
  });

  it('without a token says how to open the panel', async () => {
    const page = await open(runtime([server('memory')]), (h) => `${h.origin}/`);
    await waitText(page, '.banner-detail', /No access token/);
    expect(harness!.requests.filter((r) => r.path === '/events').length).toBe(0);
  });

  it('keeps working after a reload, with the token still out of the URL', async () => {
    const page = await open(runtime([server('memory')]));
    await page.locator('li.server').waitFor();
    await page.reload();
    await page.locator('li.server').waitFor();
    await page.waitForFunction(() => document.querySelector('.bridge-state')?.textContent === 'Ready');
    expect(page.url()).not.toContain(harness!.token);
    const events = harness!.requests.filter((r) => r.path === '/events');
    expect(events.length).toBe(2);
    for (const r of events) expect(r.authorization).toBe(`Bearer ${harness!.token}`);
  });
});
