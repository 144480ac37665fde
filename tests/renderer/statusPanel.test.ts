// The status panel in real Chromium against a real HTTP stand-in of the bridge: listing,
// live updates in place, restart, errors, token handling, XSS and CSP.
import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { panelForFile, type PanelPage } from '../helpers/panelBrowser.js';
import { startStatusHttpHarness, type StatusHttpHarness } from '../helpers/statusHttpHarness.js';
import { realisticStatus, runtime, server } from '../helpers/sampleStatus.js';
import { waitFor } from '../helpers/waitFor.js';
import type { RestartResult } from '../../src/shared/ipcContract.js';

const panel = panelForFile();
let harness: StatusHttpHarness | undefined;
let current: PanelPage | undefined;

afterEach(async () => {
  // Every page of this file must run without console errors (CSP violations show up there).
  const errors = current?.errors ?? [];
  await current?.context.close();
  await harness?.close();
  current = undefined;
  harness = undefined;
  expect(errors).toEqual([]);
});

async function open(status = realisticStatus()): Promise<{ page: Page; harness: StatusHttpHarness }> {
  harness = await startStatusHttpHarness({ staticDir: panel.dir, status });
  current = await panel.newPage();
  await current.page.goto(harness.pageUrl);
  await current.page.locator('li.server').first().waitFor();
  return { page: current.page, harness };
}

const card = (page: Page, id: string) => page.locator(`li.server[data-server-id="${id}"]`);
const badgeText = (page: Page, id: string) => card(page, id).locator('.badge-text').textContent();

describe('status panel over HTTP', () => {
  it('lists every server with its state badge, transport and facts', async () => {
    const { page } = await open();
    const ids = await page
      .locator('li.server')
      .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.serverId));
    expect(ids).toEqual(['filesystem', 'memory', 'github', 'everything', 'legacy-search']);
    const expected: Record<string, [string, string]> = {
      filesystem: ['Ready', 'stdio'],
      memory: ['Restarting', 'stdio'],
      github: ['Failed', 'http'],
      everything: ['Starting', 'stdio'],
      'legacy-search': ['Disabled', 'sse'],
    };
    for (const [id, [label, transport]] of Object.entries(expected)) {
      expect(await badgeText(page, id)).toBe(label);
      expect(await card(page, id).locator('.badge').getAttribute('class')).toContain(`badge-${label.toLowerCase()}`);
      expect(await card(page, id).locator('.transport').textContent()).toBe(transport);
    }
    const fs = card(page, 'filesystem');
    expect(await fs.locator('.fact').allTextContents()).toEqual([
      'Tools5',
      'PID31842',
      'Uptime1h 02m',
      'Restarts0',
      'Sessions2',
      // No call through the bridge yet (the status has no `health`): a dash.
      'Calls (5 min)\u2014',
    ]);
    expect(await fs.locator('.tools summary').textContent()).toBe('5 tools');
    expect(await fs.locator('.tool-name').allTextContents()).toContain('read_text_file');
    // Colour differs between states, and the badge carries words too.
    const colours = await page
      .locator('.badge')
      .evaluateAll((els) => els.map((e) => getComputedStyle(e).backgroundColor));
    expect(new Set(colours).size).toBe(5);
    expect(await page.locator('.progress-text').textContent()).toBe('1 of 4 ready (1 failed, 1 disabled)');
    expect(await page.locator('.bridge-state').textContent()).toBe('Ready');
    // Restart is blocked for servers the runtime is already (re)starting, or that are disabled.
    const blocked = async (id: string) => card(page, id).locator('button.restart').getAttribute('aria-disabled');
    expect([
      await blocked('filesystem'),
      await blocked('memory'),
      await blocked('github'),
      await blocked('everything'),
      await blocked('legacy-search'),
    ]).toEqual(['false', 'true', 'false', 'true', 'true']);
    expect(await page.getByRole('button', { name: 'Restart github' }).count()).toBe(1);
    expect(await page.getByRole('main').count()).toBe(1);
    expect(await page.getByRole('banner').count()).toBe(1);
  });

  it('removes the token from the URL and sends it only as a Bearer header', async () => {
    const { page, harness } = await open();
    expect(page.url()).not.toContain(harness.token);
    expect(await page.evaluate(() => location.hash)).toBe('');
    const api = harness.requests.filter((r) => ['/status', '/events'].includes(r.path));
    expect(api.map((r) => r.path).sort()).toEqual(['/events', '/status']);
    for (const r of api) expect(r.authorization).toBe(`Bearer ${harness.token}`);
    for (const r of harness.requests) expect(r.path).not.toContain(harness.token);
  });

  it('applies a live change (ready -> restarting -> ready) in place, keeping expanded and focus state', async () => {
    const status = realisticStatus();
    const { page, harness } = await open(status);
    const fs = card(page, 'filesystem');
    await fs.locator('.tools summary').click();
    await fs.locator('button.restart').focus();
    await page.evaluate(() => {
      (window as unknown as { marker: string }).marker = 'same page';
      (document.querySelector('li.server[data-server-id="filesystem"]') as unknown as { tag: string }).tag =
        'same node';
    });

    const step = (state: 'restarting' | 'ready', extra: object = {}) =>
      harness.setStatus({
        ...status,
        servers: status.servers.map((s) => (s.id === 'filesystem' ? { ...s, state, ...extra } : s)),
      });
    step('restarting', { restarts: 1 });
    await page.waitForFunction(
      () => document.querySelector('li.server[data-server-id="filesystem"] .badge-text')?.textContent === 'Restarting',
    );
    expect(await fs.locator('.fact').nth(3).textContent()).toBe('Restarts1');
    expect(await page.locator('[aria-live="polite"]').textContent()).toBe('filesystem is now Restarting.');
    step('ready', { restarts: 1, pid: 40001 });
    await page.waitForFunction(
      () => document.querySelector('li.server[data-server-id="filesystem"] .badge-text')?.textContent === 'Ready',
    );
    expect(await fs.locator('.fact').nth(1).textContent()).toBe('PID40001');

    const kept = await page.evaluate(() => {
      const li = document.querySelector('li.server[data-server-id="filesystem"]') as HTMLElement & { tag?: string };
      return {
        marker: (window as unknown as { marker?: string }).marker,
        tag: li.tag,
        toolsOpen: (li.querySelector('details.tools') as HTMLDetailsElement).open,
        focused: document.activeElement === li.querySelector('button.restart'),
      };
    });
    expect(kept).toEqual({ marker: 'same page', tag: 'same node', toolsOpen: true, focused: true });
  });

  it('sends POST restart with the token and keeps the button blocked while the request is pending', async () => {
    const { page, harness } = await open();
    let answer!: (r: RestartResult) => void;
    harness.onRestart = () => new Promise<RestartResult>((resolve) => (answer = resolve));
    const button = card(page, 'github').locator('button.restart');
    await button.click();
    await page.waitForFunction(
      () =>
        document.querySelector('li.server[data-server-id="github"] button.restart')?.getAttribute('aria-disabled') ===
        'true',
    );
    expect(await button.textContent()).toBe('Restarting\u2026');
    await button.click({ force: true }); // ignored while pending
    await button.press('Enter'); // also ignored, by keyboard
    const posts = () => harness.requests.filter((r) => r.method === 'POST');
    expect(posts()).toEqual([
      { method: 'POST', path: '/servers/github/restart', authorization: `Bearer ${harness.token}` },
    ]);
    answer({ ok: false, error: 'server "github" is disabled in the config' });
    await card(page, 'github').locator('.restart-error').waitFor();
    expect(await card(page, 'github').locator('.restart-error').textContent()).toBe(
      'Restart failed: server "github" is disabled in the config',
    );
    expect(await button.getAttribute('aria-disabled')).toBe('false');
    // Keyboard: focus and Enter send a new request.
    harness.onRestart = () => ({ ok: true });
    await button.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      () => !document.querySelector('li.server[data-server-id="github"] .restart-error:not([hidden])'),
    );
    expect(posts().length).toBe(2);
  });

  it('shows the full last error of a failed server', async () => {
    const longError = `Error: spawn npx ENOENT\n${Array.from({ length: 60 }, (_, i) => `    at frame${i} (file:///opt/app/node_modules/x/index.js:${i}:1)`).join('\n')}\nEND-OF-ERROR`;
    const { page } = await open(
      runtime([server('broken', { state: 'failed', lastError: longError, stderrTail: ['boom'] })]),
    );
    expect(await card(page, 'broken').locator('.last-error-text').textContent()).toBe(longError);
    expect(await card(page, 'broken').locator('.last-error').isVisible()).toBe(true);
    expect(
      await card(page, 'broken')
        .locator('details.logs')
        .evaluate((d) => (d as HTMLDetailsElement).open),
    ).toBe(true);
    expect(await card(page, 'broken').locator('.log-text').textContent()).toBe('boom');
  });

  it('shows the command and the PATH a server got, folded; none for a server without a launch', async () => {
    const launch = {
      command: '~/.nvm/versions/node/v22.1.0/bin/npx',
      path: '/usr/bin:/bin:~/.nvm/versions/node/v22.1.0/bin',
      pathFrom: 'login-shell' as const,
    };
    const { page } = await open(runtime([server('npx-one', { launch }), server('remote', { transport: 'http' })]));
    const details = card(page, 'npx-one').locator('details.launch');
    expect(await details.isVisible()).toBe(true);
    expect(await details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await details.locator('summary').click();
    expect(await details.locator('.launch-text').textContent()).toBe(
      'command: ~/.nvm/versions/node/v22.1.0/bin/npx\nPATH (login-shell): /usr/bin:/bin:~/.nvm/versions/node/v22.1.0/bin',
    );
    expect(await card(page, 'remote').locator('details.launch').isVisible()).toBe(false);
  });

  it('shows a config edit that was not applied, with its message, until one is', async () => {
    const { page, harness } = await open(runtime([server('memory', { state: 'ready' })]));
    expect(await page.locator('.banner').isHidden()).toBe(true);
    const message = 'invalid MCP config in /home/u/mcp.json: mcpServers.memory.command must be a string';
    harness.setStatus(runtime([server('memory', { state: 'ready' })], { configError: message }));
    await page.locator('.banner-title').filter({ hasText: 'was not applied' }).waitFor();
    expect(await page.locator('.banner-detail').textContent()).toBe(message);
    expect(await badgeText(page, 'memory')).toMatch(/ready/i);
    harness.setStatus(runtime([server('memory', { state: 'ready' })]));
    await page.locator('.banner').waitFor({ state: 'hidden' });
  });

  it('opens the log of a server that turns failed later, unless the user has toggled it', async () => {
    const at = (state: 'restarting' | 'failed' | 'ready', stderrTail: string[]) =>
      runtime([server('a', { state, stderrTail }), server('b', { state, stderrTail })]);
    const { page, harness } = await open(at('restarting', []));
    const isOpen = (id: string) =>
      card(page, id)
        .locator('details.logs')
        .evaluate((d) => (d as HTMLDetailsElement).open);
    expect([await isOpen('a'), await isOpen('b')]).toEqual([false, false]);
    // The user opens and closes b's log: from then on the panel leaves it alone.
    await card(page, 'b').locator('details.logs summary').click();
    await card(page, 'b').locator('details.logs summary').click();
    // Failed first without lines (a new attempt's tail is empty), then the tail arrives.
    harness.setStatus(at('failed', []));
    await page.waitForFunction(
      () => document.querySelector('li.server[data-server-id="a"] .badge-text')?.textContent === 'Failed',
    );
    expect(await isOpen('a')).toBe(false);
    harness.setStatus(at('failed', ['fatal: cannot open the database']));
    await page.waitForFunction(() =>
      document.querySelector('li.server[data-server-id="a"] details.logs')?.hasAttribute('open'),
    );
    expect(await isOpen('b')).toBe(false);
  });

  it('renders server-controlled strings as text, never as markup', async () => {
    const evil = '<img src=x onerror="window.pwned=1">';
    const { page } = await open(
      runtime([
        server('<b>srv</b>', {
          tools: [{ name: '<script>window.pwned=2</script>', description: evil }],
          lastError: evil,
          stderrTail: [evil],
        }),
      ]),
    );
    await page.locator('details.tools summary').click();
    expect(await page.locator('.tool-description').textContent()).toBe(evil);
    expect(await page.locator('.server-name').textContent()).toBe('<b>srv</b>');
    expect(await page.locator('.last-error-text').textContent()).toBe(evil);
    const injected = await page.evaluate(() => ({
      imgs: document.querySelectorAll('img').length,
      bolds: document.querySelectorAll('b').length,
      scripts: document.querySelectorAll('script').length,
      pwned: (window as unknown as { pwned?: number }).pwned,
    }));
    expect(injected).toEqual({ imgs: 0, bolds: 0, scripts: 1, pwned: undefined });
  });

  it('ticks the uptime without new status', async () => {
    const { page } = await open(
      runtime([server('clock', { startedAt: new Date(Date.now() - 10_000).toISOString(), pid: 1 })]),
    );
    const uptime = card(page, 'clock').locator('.fact').nth(2);
    const first = await uptime.textContent();
    await page.waitForFunction((t) => document.querySelectorAll('.fact')[2]?.textContent !== t, first, {
      timeout: 5000,
    });
    expect(await uptime.textContent()).toMatch(/^Uptime1\ds$/);
  });

  it('the console check does catch a CSP violation', async () => {
    const { page } = await open();
    await page.evaluate(() => {
      const style = document.createElement('style');
      style.textContent = 'body { color: red }';
      document.head.append(style);
    });
    await waitFor(
      () => current!.errors.some((e) => /Content Security Policy/.test(e)),
      10_000,
      () => `a CSP violation on the console (have ${JSON.stringify(current!.errors)})`,
    );
    current!.errors.splice(0); // consumed here, so afterEach sees none
  });
});

describe('status panel over the preload API', () => {
  it('uses window.mcpRuntime when present and never calls HTTP', async () => {
    harness = await startStatusHttpHarness({ staticDir: panel.dir, status: runtime([]) });
    current = await panel.newPage();
    const { page } = current;
    const restarts: string[] = [];
    await page.exposeFunction('hostRestart', (id: string) => {
      restarts.push(id);
      return { ok: true };
    });
    await page.addInitScript(
      (initial) => {
        const w = window as unknown as Record<string, unknown> & { hostRestart(id: string): Promise<unknown> };
        const listeners: ((s: unknown) => void)[] = [];
        w.pushStatus = (s: unknown) => listeners.forEach((cb) => cb(s));
        w.mcpRuntime = {
          getStatus: async () => initial,
          onStatus: (cb: (s: unknown) => void) => {
            listeners.push(cb);
            return () => listeners.splice(listeners.indexOf(cb), 1);
          },
          restart: (id: string) => w.hostRestart(id),
        };
      },
      runtime([server('memory', { pid: 7 })]),
    );
    await page.goto(`${harness.origin}/`);
    await card(page, 'memory').waitFor();
    await page.evaluate(
      (s) => (window as unknown as { pushStatus(s: unknown): void }).pushStatus(s),
      runtime([server('memory', { state: 'failed', lastError: 'gone' })]),
    );
    await page.waitForFunction(() => document.querySelector('.badge-text')?.textContent === 'Failed');
    await page.getByRole('button', { name: 'Restart memory' }).click();
    await page.waitForFunction(
      () => document.querySelector('button.restart')?.getAttribute('aria-disabled') === 'false',
    );
    expect(restarts).toEqual(['memory']);
    expect(harness.requests.map((r) => r.path).filter((p) => !/^\/(index\.html|panel\.(js|css))?$/.test(p))).toEqual(
      [],
    );
  });
});
