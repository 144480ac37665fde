// The rest of the stand-in panel tests' claims (statusPanel.test.ts, connection.test.ts),
// shown against the real bridge (dist/proxy serving dist/renderer) with real servers: the
// `http` and `sse` transport labels (SDK servers over streamable HTTP and legacy SSE on
// 127.0.0.1), markup in a tool description and the most hostile server id the config
// schema allows rendered as text, the Sessions fact following a real MCP session, a log
// that opened by itself staying closed once the user closed it, the page's ARIA roles, and
// the event stream alone cut (in a Host-rewriting proxy) while the bridge stays up, and
// (last, it kills the bridge) "Restart failed: ..." when the bridge dies under a pending restart.
// One bridge and one Chromium for the file; everything is stopped and checked gone after.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  cleanupBridges,
  fixture,
  nodeEntry,
  startBridge,
  waitFor,
  type BridgeProcess,
} from '../helpers/bridgeProcess.js';
import { launchPanelBrowser, nonNetworkErrors, type PanelBrowser, type PanelPage } from '../helpers/panelBrowser.js';
import { FIXTURE, startHttpFixture } from '../helpers/proxyCli.js';
import { scaled } from '../helpers/loadScale.js';

// The fixture's echo tool is described as `echo from <name>`: the name is markup.
const EVIL = '<img src=x onerror="window.pwned=1"><b>bold</b><script>window.pwned=2</script>';
// SERVER_ID_RE allows [A-Za-z0-9][A-Za-z0-9_.-]{0,63}: no markup can pass, so the most
// hostile id is one that reads as a prototype path and breaks naive selectors and maps.
const HOSTILE_ID = 'constructor.__proto__.-';

let bridge: BridgeProcess;
let chrome: PanelBrowser | undefined;
const pages: PanelPage[] = [];
const remotes: { stop: () => Promise<void> }[] = [];

async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const p = await chrome!.newPage({ viewport: { width: 1200, height: 800 } });
  pages.push(p);
  await p.page.goto(`${bridge.url}/#token=${bridge.bearer}`);
  await p.page.locator('li.server').nth(3).waitFor();
  return { page: p.page, errors: p.errors };
}

const card = (page: Page, id: string) => page.locator(`li.server[data-server-id="${id}"]`);
const badge = (page: Page, id: string) => card(page, id).locator('.badge-text').textContent();
const fact = (page: Page, id: string, label: string) =>
  card(page, id)
    .locator('.fact', { has: page.locator('dt', { hasText: label }) })
    .locator('dd')
    .textContent();
const logOpen = (page: Page, id: string) =>
  card(page, id)
    .locator('details.logs')
    .evaluate((d) => (d as HTMLDetailsElement).open);

/**
 * An HTTP proxy on 127.0.0.1 port 0 in front of the bridge (Host and Origin rewritten to the
 * bridge's, so its checks pass) that can cut the `/events` streams it carries and hold new
 * ones until released: the event stream alone drops while the bridge stays up.
 */
async function startCuttingProxy(target: number) {
  const live = new Set<http.ServerResponse>();
  const waiting: (() => void)[] = [];
  let streams = 0;
  const server = http.createServer((req, res) => {
    const forward = () => {
      const headers = { ...req.headers, host: `127.0.0.1:${target}` };
      if (headers.origin) headers.origin = `http://127.0.0.1:${target}`;
      const up = http.request(
        { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers, agent: false },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      res.on('close', () => up.destroy());
      req.pipe(up);
    };
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/events') return forward();
    streams++;
    live.add(res);
    res.on('close', () => live.delete(res));
    if (proxy.holdEvents) waiting.push(forward);
    else forward();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const proxy = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    holdEvents: false,
    eventStreams: () => streams,
    held: () => waiting.length,
    cutEvents: () => {
      for (const res of live) res.destroy();
    },
    release: () => {
      proxy.holdEvents = false;
      for (const f of waiting.splice(0)) f();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
  return proxy;
}

beforeAll(async () => {
  const http = await startHttpFixture('http', { name: 'remote-http' });
  remotes.push(http);
  const sse = await startHttpFixture('sse', { name: EVIL });
  remotes.push(sse);
  bridge = await startBridge({
    config: {
      mcpServers: {
        remote: { type: 'http', url: http.url },
        legacy: { type: 'sse', url: sse.url },
        [HOSTILE_ID]: nodeEntry(FIXTURE, ['--name', EVIL, '--tools', 'echo']),
        broken: nodeEntry(fixture('crashingServer.mjs'), ['--exit-on-start', '1']),
      },
    },
  });
  chrome = await launchPanelBrowser();
}, scaled(45_000));

afterAll(async () => {
  for (const p of pages.splice(0)) await p.context.close();
  await chrome?.close();
  await cleanupBridges();
  for (const r of remotes.splice(0)) await r.stop();
}, 40_000);

describe('status panel against the real bridge, the remaining stand-in claims', () => {
  it('labels a streamable HTTP server `http` and a legacy SSE server `sse`, both ready with their tools', async () => {
    const { page } = await openPage();
    await waitFor(
      async () => (await badge(page, 'remote')) === 'Ready' && (await badge(page, 'legacy')) === 'Ready',
      20_000,
      'both remotes ready',
    );
    expect(await card(page, 'remote').locator('.transport').textContent()).toBe('http');
    expect(await card(page, 'legacy').locator('.transport').textContent()).toBe('sse');
    expect(await card(page, HOSTILE_ID).locator('.transport').textContent()).toBe('stdio');
    const tools = (await bridge.server('remote')).tools.length;
    expect(tools).toBeGreaterThan(0);
    expect(await fact(page, 'remote', 'Tools')).toBe(String(tools));
  }, 30_000);

  it('renders markup in tool descriptions and a hostile server id as text: no element made, no script run, no console error', async () => {
    const { page, errors } = await openPage();
    await waitFor(
      async () => (await badge(page, HOSTILE_ID)) === 'Ready' && (await badge(page, 'legacy')) === 'Ready',
      20_000,
      'ready',
    );
    for (const id of [HOSTILE_ID, 'legacy']) {
      await card(page, id).locator('details.tools summary').click();
      const echo = card(page, id).locator('li', { has: page.locator('.tool-name', { hasText: /^echo$/ }) });
      expect(await echo.locator('.tool-description').textContent()).toBe(`echo from ${EVIL}`);
    }
    expect(await card(page, HOSTILE_ID).locator('.server-name').textContent()).toBe(HOSTILE_ID);
    expect(await page.getByRole('button', { name: `Restart ${HOSTILE_ID}` }).count()).toBe(1);
    const injected = await page.evaluate(() => ({
      imgs: document.querySelectorAll('img').length,
      bolds: document.querySelectorAll('b').length,
      scripts: document.querySelectorAll('script').length,
      pwned: (window as unknown as { pwned?: number }).pwned,
    }));
    expect(injected).toEqual({ imgs: 0, bolds: 0, scripts: 1, pwned: undefined });
    expect(nonNetworkErrors(errors)).toEqual([]);
  }, 30_000);

  it('counts a real MCP session on the card: Sessions 1 while open, 0 once it is ended', async () => {
    const { page } = await openPage();
    await waitFor(async () => (await badge(page, 'remote')) === 'Ready', 20_000, 'remote ready');
    expect(await fact(page, 'remote', 'Sessions')).toBe('0');
    const { client, transport } = await bridge.client('/mcp/remote');
    await waitFor(async () => (await fact(page, 'remote', 'Sessions')) === '1', 10_000, 'Sessions 1');
    expect((await bridge.server('remote')).sessions).toBe(1);
    // Closing a streamable HTTP client alone leaves the session to the server: end it (DELETE).
    await (transport as StreamableHTTPClientTransport).terminateSession();
    await client.close();
    await waitFor(async () => (await fact(page, 'remote', 'Sessions')) === '0', 10_000, 'Sessions 0');
  }, 30_000);

  it('a log that opened by itself stays closed once the user closed it, through the next live update', async () => {
    const { page } = await openPage();
    await waitFor(async () => (await badge(page, 'broken')) === 'Failed', 25_000, 'broken failed');
    await page.waitForFunction(() =>
      document.querySelector('li.server[data-server-id="broken"] details.logs')?.hasAttribute('open'),
    );
    expect(await card(page, 'broken').locator('.log-text').textContent()).not.toBe('');
    await card(page, 'broken').locator('details.logs summary').click();
    expect(await logOpen(page, 'broken')).toBe(false);
    // The next live update (a session opened on another server) carries broken failed with
    // its log lines again, which opens an untouched log; this one must stay closed.
    const updates = bridge.history.length;
    const { transport } = await bridge.client('/mcp/remote');
    await waitFor(async () => (await fact(page, 'remote', 'Sessions')) === '1', 10_000, 'the live update in the page');
    expect(bridge.history.length).toBeGreaterThan(updates);
    expect(bridge.history[bridge.history.length - 1]!.servers.find((x) => x.id === 'broken')).toMatchObject({
      state: 'failed',
    });
    await (transport as StreamableHTTPClientTransport).terminateSession();
    expect(await logOpen(page, 'broken')).toBe(false);
    // A page that was never touched does open it by itself on the same state.
    const fresh = await openPage();
    await fresh.page.waitForFunction(() =>
      document.querySelector('li.server[data-server-id="broken"] details.logs')?.hasAttribute('open'),
    );
  }, 60_000);

  it('has the ARIA roles the stand-in test checks: one main, one banner, a named Restart button per server', async () => {
    const { page } = await openPage();
    expect(await page.getByRole('main').count()).toBe(1);
    expect(await page.getByRole('banner').count()).toBe(1);
    for (const id of ['remote', 'legacy', HOSTILE_ID, 'broken'])
      expect(await page.getByRole('button', { name: `Restart ${id}`, exact: true }).count()).toBe(1);
    expect(await page.locator('[aria-live="polite"]').count()).toBe(1);
  });

  it('reconnects when the event stream alone drops (cut in a proxy, the bridge stays up) and picks up a change made meanwhile', async () => {
    const proxy = await startCuttingProxy(bridge.port);
    try {
      const p = await chrome!.newPage({ viewport: { width: 1200, height: 800 } });
      pages.push(p);
      const page = p.page;
      await page.goto(`${proxy.url}/#token=${bridge.bearer}`);
      await waitFor(
        async () => (await badge(page, 'remote').catch(() => null)) === 'Ready',
        20_000,
        'remote ready through the proxy',
      );
      expect(await fact(page, 'remote', 'Sessions')).toBe('0');
      expect(proxy.eventStreams()).toBe(1);
      // Cut the stream and hold the next one, so the change below happens while nobody listens.
      proxy.holdEvents = true;
      proxy.cutEvents();
      const { transport } = await bridge.client('/mcp/remote');
      expect((await bridge.server('remote')).sessions).toBe(1);
      await waitFor(() => proxy.held() === 1, 10_000, 'the page to ask for a new event stream');
      expect(await fact(page, 'remote', 'Sessions')).toBe('0');
      proxy.release();
      await waitFor(async () => (await fact(page, 'remote', 'Sessions')) === '1', 10_000, 'the change made meanwhile');
      expect(proxy.eventStreams()).toBe(2);
      expect(bridge.exit).toBeUndefined();
      expect(await page.locator('.bridge-state').textContent()).toBe('Ready');
      await (transport as StreamableHTTPClientTransport).terminateSession();
    } finally {
      await proxy.close();
    }
  }, 40_000);

  // Last: this one kills the bridge. The real case of "Restart failed": the bridge dies while
  // a restart it has not answered yet is pending (stopped with SIGSTOP so the POST is taken
  // by the kernel but never answered, then SIGKILLed so the connection is reset).
  it('shows the restart as pending while the bridge holds the POST, then "Restart failed: ..." when the bridge dies under it', async () => {
    const { page } = await openPage();
    await waitFor(async () => (await badge(page, 'remote')) === 'Ready', 20_000, 'remote ready');
    const button = card(page, 'remote').locator('button.restart');
    expect(await button.getAttribute('aria-disabled')).toBe('false');
    process.kill(bridge.pid, 'SIGSTOP');
    try {
      await button.click();
      await page.waitForFunction(
        () =>
          document.querySelector('li.server[data-server-id="remote"] button.restart')?.getAttribute('aria-disabled') ===
          'true',
      );
      expect(await button.textContent()).toBe('Restarting\u2026');
    } finally {
      bridge.child.kill('SIGKILL');
    }
    await bridge.waitExit(10_000);
    const error = card(page, 'remote').locator('.restart-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^Restart failed: The bridge could not be reached \(.+\)\.$/);
    expect(await error.getAttribute('role')).toBe('alert');
    await waitFor(
      async () => /cannot be reached|Reconnecting/.test((await page.locator('.banner-title').textContent()) ?? ''),
      10_000,
      'the banner',
    );
  }, 40_000);
});
