// The status panel in real Chromium against the real bridge (dist/proxy, serving
// dist/renderer at `/`) with real servers: memory, everything and filesystem from
// node_modules, a node server that exits 1 on every start, a command that does not
// exist, and a disabled entry. One bridge and one page for the whole file: the tests are
// the steps of one session, in order (list, crash, Restart, failures, screenshot).
// The canonical docs/status-panel.png is written here when UPDATE_SCREENSHOTS=1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  FILESYSTEM_SERVER,
  MEMORY_SERVER,
  ROOT,
  cleanupBridges,
  everythingEntry,
  fixture,
  memoryEntry,
  nodeEntry,
  startBridge,
  tempDir,
  waitFor,
  type BridgeProcess,
} from '../helpers/bridgeProcess.js';
import { launchPanelBrowser, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';
import type { ServerStatus } from '../../src/shared/status.js';
import { expectGone } from '../helpers/expectGone.js';

const update = process.env.UPDATE_SCREENSHOTS === '1';
// In this order the two tall cards (a tool list open, a failed server's log) share a row.
const IDS = ['memory', 'broken', 'everything', 'missing', 'filesystem', 'off'];
const REAL = ['memory', 'everything', 'filesystem'];

let bridge: BridgeProcess;
let chrome: PanelBrowser | undefined;
let panel: PanelPage | undefined;
let page: Page;
let missingCommand: string;

const card = (id: string) => page.locator(`li.server[data-server-id="${id}"]`);
const badge = (id: string) => card(id).locator('.badge-text').textContent();
/** The value of one fact (`Tools`, `PID`, `Restarts`, ...) on a card. */
const fact = (id: string, label: string) =>
  card(id)
    .locator('.fact', { has: page.locator('dt', { hasText: label }) })
    .locator('dd')
    .textContent();

/** What the page recorded for one server: `<badge>|<Restart aria-disabled>`, repeats collapsed. */
const recorded = (id: string) =>
  page.evaluate((sid) => (window as unknown as { rec: Record<string, string[]> }).rec[sid] ?? [], id);

/** Waits until the card of `id` shows `label` and `pred` holds for its facts. */
async function waitCard(
  id: string,
  label: string,
  timeoutMs: number,
  pred: (facts: Record<string, string>) => boolean = () => true,
): Promise<Record<string, string>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const facts = Object.fromEntries(
      await card(id)
        .locator('.fact')
        .evaluateAll((els) =>
          els.map((e) => [e.querySelector('dt')!.textContent!, e.querySelector('dd')!.textContent!]),
        ),
    ) as Record<string, string>;
    if ((await badge(id)) === label && pred(facts)) return facts;
    if (Date.now() > deadline)
      throw new Error(
        `${id}: no "${label}" within ${timeoutMs} ms; card shows ${await badge(id)} ${JSON.stringify(facts)}; /status: ${JSON.stringify(await bridge.server(id).catch(() => undefined))}`,
      );
    await page.waitForTimeout(50);
  }
}

beforeAll(async () => {
  const dir = tempDir('panel-real-');
  const files = join(dir, 'files');
  mkdirSync(files);
  missingCommand = join(dir, 'no-such-mcp-server');
  bridge = await startBridge({
    config: {
      mcpServers: {
        memory: memoryEntry(dir),
        broken: nodeEntry(fixture('crashingServer.mjs'), ['--exit-on-start', '1']),
        everything: everythingEntry(),
        missing: { command: missingCommand },
        filesystem: nodeEntry(FILESYSTEM_SERVER, [files]),
        off: nodeEntry(MEMORY_SERVER, [], { disabled: true }),
      },
    },
  });
  chrome = await launchPanelBrowser();
  panel = await chrome.newPage({ viewport: { width: 1200, height: 800 }, colorScheme: 'light' });
  page = panel.page;
}, 45_000);

afterAll(async () => {
  const pids = bridge ? [bridge.pid, ...bridge.pids] : [];
  await panel?.context.close();
  await chrome?.close(); // throws if any Chromium process is left
  await cleanupBridges(); // SIGTERM, then checks the bridge and every server pid it reported
  for (const pid of pids) expectGone(pid);
}, 40_000);

describe('status panel against the real bridge', () => {
  it('opens from the URL the bridge prints, keeps the token out of the URL, lists every server with its state and tools', async () => {
    const line = await waitFor(
      () => /status panel: (http:\/\/127\.0\.0\.1:\d+\/#token=\S+)\n/.exec(bridge.stderr),
      5000,
      'the status panel line on stderr',
    );
    expect(line[1]).toBe(`${bridge.url}/#token=${bridge.bearer}`);
    await page.goto(line[1]);
    await page
      .locator('li.server')
      .nth(IDS.length - 1)
      .waitFor();
    expect(page.url()).toBe(`${bridge.url}/`);
    expect(await page.evaluate(() => location.hash)).toBe('');

    // Records every badge and button change from now on, to see transitions however short.
    await page.evaluate(() => {
      const rec: Record<string, string[]> = {};
      const snap = () => {
        for (const li of Array.from(document.querySelectorAll<HTMLElement>('li.server'))) {
          const s = `${li.querySelector('.badge-text')?.textContent}|${li.querySelector('button.restart')?.getAttribute('aria-disabled')}`;
          const list = (rec[li.dataset.serverId!] ??= []);
          if (list[list.length - 1] !== s) list.push(s);
        }
      };
      new MutationObserver(snap).observe(document.getElementById('app')!, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
      snap();
      Object.assign(window, { rec, marker: 'same page' });
    });

    expect(
      await page.locator('li.server').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.serverId)),
    ).toEqual(IDS);
    const status = await bridge.status();
    const byId = new Map(status.servers.map((s) => [s.id, s] as [string, ServerStatus]));
    for (const id of REAL) {
      const s = byId.get(id)!;
      expect(s.state).toBe('ready');
      expect(s.tools.length).toBeGreaterThan(0);
      expect(await badge(id)).toBe('Ready');
      expect(await card(id).locator('.transport').textContent()).toBe('stdio');
      expect(await fact(id, 'Tools')).toBe(String(s.tools.length));
      expect(await fact(id, 'PID')).toBe(String(s.pid));
      // The count, and the weight of the definitions an aggregate lists of them.
      expect(await card(id).locator('details.tools summary').textContent()).toMatch(
        new RegExp(`^${s.tools.length} tools \u00b7 ~\\d+(\\.\\d)?k? tokens$`),
      );
      expect(await card(id).locator('button.restart').getAttribute('aria-disabled')).toBe('false');
      await card(id).locator('details.tools summary').click();
      expect(await card(id).locator('.tool-name').allTextContents()).toEqual(s.tools.map((t) => t.name));
      await card(id).locator('details.tools summary').click();
    }
    // server-filesystem describes read_text_file in a paragraph: two lines until the row has focus.
    expect(byId.get('filesystem')!.tools.find((t) => t.name === 'read_text_file')!.description!.length).toBeGreaterThan(
      300,
    );
    await card('filesystem').locator('details.tools summary').click();
    const row = card('filesystem').locator('li.tool', {
      has: page.locator('.tool-name', { hasText: /^read_text_file$/ }),
    });
    const description = row.locator('.tool-description');
    const lineHeight = await description.evaluate((e) => parseFloat(getComputedStyle(e).lineHeight));
    expect((await description.boundingBox())!.height).toBeLessThanOrEqual(2 * lineHeight + 1);
    await row.focus();
    expect((await description.boundingBox())!.height).toBeGreaterThan(4 * lineHeight);
    await card('filesystem').locator('details.tools summary').click();
    // Not ready: starting, waiting to retry, or already given up, depending on the moment.
    for (const id of ['broken', 'missing']) {
      expect(['Starting', 'Restarting', 'Failed']).toContain(await badge(id));
      expect(await fact(id, 'Tools')).toBe('0');
    }
    expect(await badge('off')).toBe('Disabled');
    expect(await card('off').locator('.no-tools').textContent()).toBe('This server is disabled in the MCP config.');
    expect(await card('off').locator('button.restart').getAttribute('aria-disabled')).toBe('true');
    expect(await page.locator('.bridge-state').textContent()).toBe('Ready');
    expect(await page.locator('.bridge-meta').textContent()).toBe(
      ` \u00b7 port ${bridge.port} \u00b7 pid ${bridge.pid}`,
    );
    expect(await page.locator('.progress-text').textContent()).toMatch(
      /^3 of 5 ready( \((\d failed, )?1 disabled\))?$/,
    );
  });

  it('a SIGKILLed server turns restarting and back to ready, live, without a reload', async () => {
    const before = await bridge.server('memory');
    process.kill(before.pid!, 'SIGKILL');
    const facts = await waitCard('memory', 'Ready', 20_000, (f) => f.PID !== String(before.pid) && f.PID !== '\u2014');
    const after = await bridge.server('memory');
    expect(after.state).toBe('ready');
    expect(facts.PID).toBe(String(after.pid));
    expect(Number(facts.Restarts)).toBe(after.restarts);
    expect(after.restarts).toBeGreaterThan(before.restarts);
    expect(facts.Tools).toBe(String(before.tools.length));
    const seen = (await recorded('memory')).map((s) => s.split('|')[0]);
    expect(seen[0]).toBe('Ready');
    expect(seen.slice(1, -1).length).toBeGreaterThan(0);
    for (const s of seen.slice(1, -1)) expect(['Restarting', 'Failed', 'Starting']).toContain(s);
    expect(seen[seen.length - 1]).toBe('Ready');
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same page');
    expectGone(before.pid!);
  }, 30_000);

  it('Restart goes through restarting (button blocked) back to ready with restarts incremented', async () => {
    const before = await bridge.server('everything');
    await page.getByRole('button', { name: 'Restart everything' }).click();
    const facts = await waitCard(
      'everything',
      'Ready',
      25_000,
      (f) => f.PID !== String(before.pid) && f.PID !== '\u2014',
    );
    expect(facts.Restarts).toBe(String(before.restarts + 1));
    const after = await bridge.server('everything');
    expect([after.state, after.restarts, String(after.pid)]).toEqual(['ready', before.restarts + 1, facts.PID]);
    const seen = await recorded('everything');
    expect(seen[0]).toBe('Ready|false');
    expect(seen).toContain('Restarting|true');
    expect(seen[seen.length - 1]).toBe('Ready|false');
    expect(await card('everything').locator('.restart-error').isHidden()).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same page');
    expectGone(before.pid!);
  }, 35_000);

  it('servers that cannot start show why: last error, stderr, failed after the retries', async () => {
    // Retries after 1, 2, 4 and 8 s, then failed: about 15 s after the bridge started.
    await waitCard('broken', 'Failed', 40_000);
    await waitCard('missing', 'Failed', 10_000);
    const broken = card('broken');
    expect(await broken.locator('.last-error').isVisible()).toBe(true);
    expect(await broken.locator('.last-error-text').textContent()).toBe((await bridge.server('broken')).lastError);
    expect(await broken.locator('.last-error-text').textContent()).toContain('exited with code 1');
    // The reason is on the server's stderr; the log of a failed server opens by itself.
    await waitFor(
      async () =>
        (await broken.locator('.log-text').textContent())?.includes('crashing: fatal: cannot open the database'),
      5000,
      'the stderr of broken',
    );
    expect(await broken.locator('.log-text').isVisible()).toBe(true);
    expect(await broken.locator('button.restart').getAttribute('aria-disabled')).toBe('false');
    const missing = await card('missing').locator('.last-error-text').textContent();
    expect(missing).toContain(`command '${missingCommand}' not found (ENOENT)`);
    expect(await fact('missing', 'Restarts')).toBe('4');
    expect(await page.locator('.progress-text').textContent()).toBe('3 of 5 ready (2 failed, 1 disabled)');
  }, 45_000);

  it('screenshot at 1200x800, no overflow, no console errors', async () => {
    const outDir = update ? join(ROOT, 'docs') : tempDir('panel-real-shot-');
    await card('memory').locator('details.tools summary').click();
    await page.mouse.move(0, 0);
    // The click may have scrolled the card into view: the picture starts at the header.
    await page.evaluate(() => window.scrollTo(0, 0));
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1200);
    const file = join(outDir, 'status-panel.png');
    await page.screenshot({ path: file });
    expect(statSync(file).size).toBeGreaterThan(10_000);
    expect(panel!.errors).toEqual([]);
  });
});
