// An authorization server that names something other than an http(s) page as its
// authorization endpoint (a local file, a Windows protocol handler) gets nothing opened, by
// the built CLI on a 401 (stdio aggregation opens the browser by itself) nor by the bridge's
// Sign in: the flow ends with a clear error naming the server, and the browser command (a
// recorder that writes a file when run) never runs. The bridge's browser command gets none
// of the bridge's secrets.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectProxy, ensureBuilt } from '../../helpers/proxyCli.js';
import { cleanupBridges, startBridge } from '../../helpers/bridgeProcess.js';
import { FIXTURES } from '../../helpers/paths.js';
import { waitFor } from '../../helpers/waitFor.js';
import { startFixture, tempOAuthDir } from './oauthKit.js';

const cleanups: (() => unknown)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await cleanupBridges();
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(authorizationEndpoint?: string) {
  const fx = await startFixture(authorizationEndpoint ? { authorizationEndpoint } : {});
  const tmp = tempOAuthDir();
  cleanups.push(() => fx.close(), tmp.remove);
  const record = join(tmp.dir, 'browser-ran.json');
  const browser = `${process.execPath} ${join(FIXTURES, 'oauth', 'recordBrowser.mjs')} ${record}`;
  return { fx, record, env: { QIMING_OAUTH_BROWSER: browser, QIMING_OAUTH_DIR: join(tmp.dir, 'tokens') } };
}

const HOSTILE = [
  ['file', 'file:///etc/passwd'],
  ['ms-msdt', 'ms-msdt:/id PCWDiagnostic /skip force /param "IT_BrowseForFile=/../../calc.exe"'],
] as const;

describe('a non-http(s) authorization endpoint is never opened', () => {
  for (const [scheme, endpoint] of HOSTILE) {
    it(`stdio aggregation on a 401: ${scheme}: no browser command, a clear error naming the server`, async () => {
      const { fx, record, env } = await setup(endpoint);
      const h = await connectProxy(
        ['--config', JSON.stringify({ mcpServers: { evil: { url: fx.url } } }), '--no-watchdog'],
        {},
        env,
      );
      cleanups.push(() => h.close());
      const host = new URL(fx.url).host;
      const refused = new RegExp(
        `\\[evil\\].*sign-in to ${host.replace(/\./g, '\\.')} failed: the authorization server names a "${scheme}:" URL as its sign-in page: not opened`,
      );
      // Whichever comes first: the refusal in the log, or the recorder having run.
      await waitFor(() => h.stderr.some((l) => refused.test(l)) || existsSync(record), 15_000, 'the sign-in to end');
      expect(existsSync(record), 'the browser command ran').toBe(false);
      expect(h.stderr.some((l) => refused.test(l))).toBe(true);
      expect(h.stderr.join('\n')).not.toMatch(/\/etc\/passwd|PCWDiagnostic/);
      expect(fx.stats.authorizeRequests).toEqual([]);
      // The proxy is still there, without the server's tools.
      expect((await h.client.listTools()).tools.map((t) => t.name)).toEqual([]);
    });
  }

  it('bridge Sign in: refused with the error in the answer, nothing opened, the server stays needs-auth', async () => {
    const { fx, record, env } = await setup('file:///etc/passwd');
    const b = await startBridge({ config: { mcpServers: { evil: { url: fx.url } } }, env });
    const res = await b.fetch('/servers/evil/sign-in', { method: 'POST' });
    const body = (await res.json()) as { ok: boolean; error?: string; url?: string };
    expect(body).toEqual({
      ok: false,
      error: expect.stringMatching(/^sign-in to 127\.0\.0\.1:\d+ failed: the authorization server names a "file:" URL/),
    });
    expect(res.status).toBe(500);
    // The app's way ({"open": false}: it opens the URL itself) gets no URL either.
    const app = await b.fetch('/servers/evil/sign-in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"open":false}',
    });
    expect(await app.json()).toMatchObject({ ok: false, error: expect.stringContaining('"file:" URL') });
    expect((await b.server('evil')).auth).toBe('needs-auth');
    expect(existsSync(record)).toBe(false);
    expect(b.stderr).toMatch(
      /\[evil\].*sign-in to 127\.0\.0\.1:\d+ failed: the authorization server names a "file:" URL/,
    );
  });
});

describe("the bridge's browser command", () => {
  it("gets neither the bridge's token nor the token store's key", async () => {
    const { fx, record, env } = await setup();
    const key = randomBytes(32).toString('base64');
    const b = await startBridge({
      config: { mcpServers: { secure: { url: fx.url } } },
      env: { ...env, QIMING_OAUTH_KEY: key },
    });
    const res = await b.fetch('/servers/secure/sign-in', { method: 'POST' });
    expect(await res.json()).toMatchObject({ ok: true, url: expect.stringContaining('/as/authorize?') });
    const got = await waitFor(
      () => existsSync(record) && (JSON.parse(readFileSync(record, 'utf8')) as { env: Record<string, string> }),
      10_000,
      'the browser command',
    );
    const token = b.token!;
    expect(token.length).toBeGreaterThan(15);
    expect(got.env).not.toHaveProperty('MCP_BRIDGE_TOKEN');
    expect(got.env).not.toHaveProperty('QIMING_OAUTH_KEY');
    expect(JSON.stringify(got.env)).not.toContain(token);
    expect(JSON.stringify(got.env)).not.toContain(key);
  });
});
