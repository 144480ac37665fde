// The panel's Sign in / Sign out control in real Chromium against the HTTP stand-in of the
// bridge: shown only on servers that use OAuth, POSTs with the token, errors shown, and no
// token of any kind rendered.
import { afterEach, describe, expect, it } from 'vitest';
import { panelForFile, type PanelPage } from '../helpers/panelBrowser.js';
import { startStatusHttpHarness, type StatusHttpHarness } from '../helpers/statusHttpHarness.js';
import { runtime, server } from '../helpers/sampleStatus.js';

const panel = panelForFile();
let harness: StatusHttpHarness | undefined;
let current: PanelPage | undefined;

afterEach(async () => {
  const errors = current?.errors ?? [];
  await current?.context.close();
  await harness?.close();
  current = harness = undefined;
  expect(errors).toEqual([]);
});

const status = () =>
  runtime([
    server('linear', {
      transport: 'http',
      state: 'needs-auth',
      auth: 'needs-auth',
      tools: [],
      lastError: 'sign in to mcp.linear.app',
    }),
    server('notion', { transport: 'http', state: 'ready', auth: 'signed-in' }),
    server('memory', { transport: 'stdio', state: 'ready' }),
  ]);

describe('sign-in in the panel', () => {
  it('shows Sign in on a server waiting for it, Sign out on a signed-in one, nothing elsewhere; the clicks POST with the token', async () => {
    harness = await startStatusHttpHarness({ staticDir: panel.dir, status: status() });
    current = await panel.newPage();
    const { page } = current;
    await page.goto(harness.pageUrl);
    const button = (id: string) => page.locator(`li.server[data-server-id="${id}"] button.auth`);
    await button('linear').waitFor();
    expect(await button('linear').textContent()).toBe('Sign in');
    expect(await page.locator('li.server[data-server-id="linear"] .badge-text').textContent()).toBe('Sign-in needed');
    expect(await page.locator('li.server[data-server-id="linear"] .no-tools').textContent()).toBe(
      'Tools are listed once you sign in.',
    );
    expect(await button('notion').textContent()).toBe('Sign out');
    expect(await button('memory').isHidden()).toBe(true);

    let answer!: (r: { ok: boolean; error?: string }) => void;
    harness.onAuth = () => new Promise((resolve) => (answer = resolve));
    await button('linear').click();
    await page.waitForFunction(
      () =>
        document.querySelector('li.server[data-server-id="linear"] button.auth')?.getAttribute('aria-disabled') ===
        'true',
    );
    expect(await button('linear').textContent()).toBe('Signing in\u2026');
    await button('linear').click({ force: true }); // ignored while pending
    const posts = () => harness!.requests.filter((r) => r.method === 'POST');
    expect(posts()).toEqual([
      { method: 'POST', path: '/servers/linear/sign-in', authorization: `Bearer ${harness.token}` },
    ]);
    answer({ ok: false, error: 'sign-in to mcp.linear.app failed: the callback port 23456 is in use' });
    const err = page.locator('li.server[data-server-id="linear"] .auth-error');
    await err.waitFor();
    expect(await err.textContent()).toBe(
      'Sign-in failed: sign-in to mcp.linear.app failed: the callback port 23456 is in use',
    );

    harness.onAuth = () => ({ ok: true });
    await button('notion').click();
    await page.waitForFunction(
      () =>
        document.querySelectorAll('li.server[data-server-id="notion"] button.auth[aria-disabled="false"]').length === 1,
    );
    expect(posts().map((p) => p.path)).toEqual(['/servers/linear/sign-in', '/servers/notion/sign-out']);

    // Live: linear signed in -> its button turns to Sign out.
    const next = status();
    next.servers[0] = { ...next.servers[0], state: 'ready', auth: 'signed-in', lastError: undefined };
    harness.setStatus(next);
    await page.waitForFunction(
      () => document.querySelector('li.server[data-server-id="linear"] button.auth')?.textContent === 'Sign out',
    );
  });
});
