// Every path reaches a protected server's tools after sign-in, offline: stdio aggregation
// (the browser opens by itself), convert (the first initialize waits for it), the bridge
// (POST /servers/<id>/sign-in; a restarted bridge reuses the stored tokens; sign-out), and
// the stdio proxy's `bridge` entry in front of it (the ACP chain). No token in any log or status.
import { readdirSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectProxy, ensureBuilt } from '../../helpers/proxyCli.js';
import { cleanupBridges, startBridge } from '../../helpers/bridgeProcess.js';
import { waitFor } from '../../helpers/waitFor.js';
import { BROWSER, startFixture, tempOAuthDir, type Fixture } from './oauthKit.js';

const cleanups: (() => unknown)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await cleanupBridges();
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(opts: Record<string, unknown> = {}) {
  const fx: Fixture = await startFixture(opts);
  const tmp = tempOAuthDir();
  cleanups.push(() => fx.close(), tmp.remove);
  return { fx, dir: tmp.dir, env: { QIMING_OAUTH_BROWSER: BROWSER, QIMING_OAUTH_DIR: tmp.dir } };
}

function noSecrets(fx: Fixture, ...texts: string[]): void {
  const all = texts.join('\n');
  expect(fx.secrets().length).toBeGreaterThan(0);
  for (const s of fx.secrets()) expect(all).not.toContain(s);
}

const text = (r: unknown) => (r as { content: { text: string }[] }).content[0].text;

describe('sign-in on every path', () => {
  it('stdio aggregation: the browser opens by itself and the tools appear', async () => {
    const { fx, env } = await setup();
    const h = await connectProxy(
      ['--config', JSON.stringify({ mcpServers: { secure: { url: fx.url } } }), '--no-watchdog'],
      {},
      env,
    );
    cleanups.push(() => h.close());
    const names = await waitFor(
      async () => {
        const tools = (await h.client.listTools()).tools.map((t) => t.name);
        return tools.includes('secure__whoami') && tools;
      },
      15_000,
      'tools after sign-in',
    );
    expect(names).toContain('secure__admin_task');
    expect(text(await h.client.callTool({ name: 'secure__whoami', arguments: {} }))).toContain('whoami: ok');
    expect(fx.stats.authorizations).toBe(1);
    noSecrets(fx, h.stderr.join('\n'));
  });

  it('stdio aggregation over legacy SSE: the refused stream starts the sign-in, then the tools appear', async () => {
    const { fx, env } = await setup();
    const h = await connectProxy(
      ['--config', JSON.stringify({ mcpServers: { old: { url: `${fx.base}/sse`, type: 'sse' } } }), '--no-watchdog'],
      {},
      env,
    );
    cleanups.push(() => h.close());
    await waitFor(
      async () => (await h.client.listTools()).tools.some((t) => t.name === 'old__whoami'),
      15_000,
      'SSE tools after sign-in',
    );
    expect(text(await h.client.callTool({ name: 'old__whoami', arguments: {} }))).toBe('whoami: ok over SSE');
    expect(fx.stats.authorizeRequests[0].resource).toBe(`${fx.base}/sse`);
    noSecrets(fx, h.stderr.join('\n'));
  });

  it('convert: the first initialize waits for the sign-in, then everything passes through', async () => {
    const { fx, env, dir } = await setup();
    const h = await connectProxy(['convert', fx.url, '--no-watchdog'], {}, env);
    cleanups.push(() => h.close());
    expect((await h.client.listTools()).tools.map((t) => t.name)).toEqual(['whoami', 'admin_task']);
    fx.expireAccess();
    expect(text(await h.client.callTool({ name: 'whoami', arguments: {} }))).toContain('whoami: ok');
    expect(fx.stats.refreshes).toBe(1);
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    noSecrets(fx, h.stderr.join('\n'));
  });

  it('bridge: needs-auth at ready, sign-in over HTTP, tokens reused after a restart, sign-out', async () => {
    const { fx, env, dir } = await setup();
    const config = { mcpServers: { secure: { url: fx.url } } };
    const b = await startBridge({ config, env });
    const ready = b.ready!;
    expect(ready.servers).toEqual([
      expect.objectContaining({
        id: 'secure',
        state: 'needs-auth',
        error: expect.stringMatching(/^sign in to 127\.0\.0\.1:\d+$/),
      }),
    ]);
    expect((await b.server('secure')).auth).toBe('needs-auth');
    expect(fx.stats.authorizations).toBe(0);

    // Sign-in without a token is refused like every API route.
    expect((await fetch(`${b.url}/servers/secure/sign-in`, { method: 'POST' })).status).toBe(401);
    const res = await b.fetch('/servers/secure/sign-in', { method: 'POST' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; url: string };
    expect(body.url).toMatch(/\/as\/authorize\?/);
    await b.waitServer('secure', (s) => s.state === 'ready' && s.auth === 'signed-in', 15_000, 'ready after sign-in');
    const { client } = await b.client('/mcp/secure');
    expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toContain('whoami: ok');
    expect((await b.fetch('/servers/nope/sign-in', { method: 'POST' })).status).toBe(404);
    const status1 = JSON.stringify(await b.status());

    // The ACP chain: the stdio proxy's bridge entry reaches the signed-in server through the bridge.
    const chain = await connectProxy(
      [
        '--config',
        JSON.stringify({
          mcpServers: {
            secure: { type: 'bridge', url: `${b.url}/mcp/secure`, headers: { Authorization: `Bearer ${b.token}` } },
          },
        }),
        '--no-watchdog',
      ],
      {},
      { QIMING_OAUTH_DIR: dir },
    );
    cleanups.push(() => chain.close());
    expect(text(await chain.client.callTool({ name: 'secure__whoami', arguments: {} }))).toContain('whoami: ok');
    await chain.close();

    b.child.kill('SIGTERM');
    await b.waitExit(10_000);
    const b2 = await startBridge({ config, env: { ...env, QIMING_OAUTH_BROWSER: '/bin/false' } });
    expect(b2.ready!.servers[0]).toMatchObject({ id: 'secure', state: 'ready', tools: 2 });
    expect(fx.stats.authorizations).toBe(1);

    const out = await b2.fetch('/servers/secure/sign-out', { method: 'POST' });
    expect(await out.json()).toEqual({ ok: true });
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toEqual([]);
    const after = await b2.waitServer('secure', (s) => s.state === 'needs-auth', 10_000, 'needs-auth after sign-out');
    expect(after.auth).toBe('needs-auth');
    noSecrets(fx, b.stderr, b2.stderr, status1, JSON.stringify(await b2.status()));
  });
});
