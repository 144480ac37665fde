// The sign-in flow against a local authorization server and protected MCP server
// (tests/fixtures/oauth/oauthServer.mjs), with a "browser" that follows the redirects.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  client,
  fixtureAuth,
  INIT_PARAMS,
  memoryLogger,
  startFixture,
  tempOAuthDir,
  type Fixture,
} from './oauthKit.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
async function setup(opts: Record<string, unknown> = {}) {
  const fx: Fixture = await startFixture(opts);
  const tmp = tempOAuthDir();
  cleanups.push(() => fx.close(), tmp.remove);
  const log = memoryLogger();
  return { fx, dir: tmp.dir, ...log };
}

describe('sign-in with discovery and dynamic registration', () => {
  it('signs in on the first 401, then reaches the tools; the token is stored 0600 and reused after a restart', async () => {
    const { fx, dir, logger, lines } = await setup();
    const auth = fixtureAuth(fx, dir, logger);
    const c = await client(fx, auth);
    cleanups.push(() => c.t.close());
    const init = await c.call('initialize', INIT_PARAMS);
    expect(init.result).toMatchObject({ serverInfo: { name: 'oauth-fixture' } });
    const tools = await c.call('tools/list');
    expect((tools.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain('whoami');
    expect(fx.stats.registrations).toBe(1);
    expect(fx.stats.authorizations).toBe(1);
    const authz = fx.stats.authorizeRequests[0];
    expect(authz.code_challenge_method).toBe('S256');
    expect(authz.resource).toBe(fx.url);
    expect(authz.state).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(authz.redirect_uri).toMatch(/^http:\/\/127\.0\.0\.1:2\d{4}\/callback$/);
    expect(authz.scope).toBe('mcp');
    expect(fx.stats.tokenRequests[0]).toMatchObject({ grant: 'authorization_code', resource: fx.url });
    expect(auth.state).toBe('signed-in');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    expect(statSync(join(dir, files[0])).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir).some((f) => f.endsWith('.tmp'))).toBe(false);
    // Tokens never reach the log.
    for (const s of fx.secrets()) expect(lines.join('\n')).not.toContain(s);

    // "Restart": a new ServerAuth on the same folder signs nobody in again.
    const again = fixtureAuth(fx, dir, logger);
    expect(again.state).toBe('signed-in');
    const c2 = await client(fx, again);
    cleanups.push(() => c2.t.close());
    expect((await c2.call('initialize', INIT_PARAMS)).result).toBeDefined();
    expect(fx.stats.authorizations).toBe(1);
    expect(fx.stats.registrations).toBe(1);
  });

  it('uses the same callback port for the same server every time', async () => {
    const { fx, dir, logger } = await setup();
    const a = await client(fx, fixtureAuth(fx, dir, logger));
    cleanups.push(() => a.t.close());
    await a.call('initialize', INIT_PARAMS);
    fx.revokeAll();
    const other = tempOAuthDir();
    cleanups.push(other.remove);
    const b = await client(fx, fixtureAuth(fx, other.dir, logger));
    cleanups.push(() => b.t.close());
    await b.call('initialize', INIT_PARAMS);
    const [first, second] = fx.stats.authorizeRequests;
    expect(second.redirect_uri).toBe(first.redirect_uri);
  });
});

describe('tokens while running', () => {
  it('refreshes an access token that expired mid-session: no call fails', async () => {
    const { fx, dir, logger } = await setup();
    const c = await client(fx, fixtureAuth(fx, dir, logger));
    cleanups.push(() => c.t.close());
    await c.call('initialize', INIT_PARAMS);
    fx.expireAccess();
    const r = await c.call('tools/call', { name: 'whoami', arguments: {} });
    expect(r.result).toBeDefined();
    expect(fx.stats.refreshes).toBe(1);
    expect(fx.stats.authorizations).toBe(1);
    expect(c.errors).toEqual([]);
  });

  it('refreshes before expiry, without a 401', async () => {
    const { fx, dir, logger } = await setup({ accessTtlSec: 30 });
    const c = await client(fx, fixtureAuth(fx, dir, logger));
    cleanups.push(() => c.t.close());
    await c.call('initialize', INIT_PARAMS);
    const unauthorized = fx.stats.unauthorized;
    await c.call('tools/list');
    expect(fx.stats.refreshes).toBeGreaterThanOrEqual(1);
    expect(fx.stats.unauthorized).toBe(unauthorized);
  });

  it('after revocation a failing refresh asks for sign-in (needs-auth) once, never loops', async () => {
    const { fx, dir, logger } = await setup();
    const auth = fixtureAuth(fx, dir, logger);
    const c = await client(fx, auth);
    cleanups.push(() => c.t.close());
    await c.call('initialize', INIT_PARAMS);
    const quiet = fixtureAuth(fx, dir, logger, { waitForSignIn: false, autoSignIn: false });
    const c2 = await client(fx, quiet);
    cleanups.push(() => c2.t.close());
    fx.revokeAll();
    const before = fx.stats.mcpRequests;
    await expect(c2.call('tools/list')).rejects.toThrow(/sign in to 127\.0\.0\.1:\d+/);
    expect(quiet.state).toBe('needs-auth');
    expect(fx.stats.mcpRequests - before).toBe(1);
    expect(fx.stats.authorizations).toBe(1);
    expect(fx.stats.tokenRequests.filter((t) => t.grant === 'refresh_token')).toHaveLength(1);
  });
});

describe('the other ways in', () => {
  it('uses a client ID metadata document where the server supports one (no registration)', async () => {
    const doc = 'https://client.example/qiming/metadata.json';
    const fx0 = { cimd: true, registration: false } as Record<string, unknown>;
    const { fx, dir, logger } = await setup(fx0);
    // The document the authorization server would fetch: the redirect URI the client will use.
    const probe = fixtureAuth(fx, dir, logger);
    const redirect = (probe as unknown as { provider: { redirectUri: string } }).provider.redirectUri;
    (fx as unknown as { options: { cimdDocs: Record<string, unknown> } }).options.cimdDocs[doc] = {
      redirect_uris: [redirect],
    };
    const c = await client(fx, fixtureAuth(fx, dir, logger, { settings: { clientMetadataUrl: doc } }));
    cleanups.push(() => c.t.close());
    expect((await c.call('initialize', INIT_PARAMS)).result).toBeDefined();
    expect(fx.stats.registrations).toBe(0);
    expect(fx.stats.authorizeRequests[0].client_id).toBe(doc);
  });

  it('uses a configured clientId/clientSecret when the server has no registration', async () => {
    const { fx, dir, logger } = await setup({
      registration: false,
      preregistered: { 'my-app': { redirect_uris: ['http://127.0.0.1:28431/callback'] } },
    });
    const c = await client(
      fx,
      fixtureAuth(fx, dir, logger, {
        settings: { clientId: 'my-app', clientSecret: 's3cret-value', callbackPort: 28431 },
      }),
    );
    cleanups.push(() => c.t.close());
    expect((await c.call('initialize', INIT_PARAMS)).result).toBeDefined();
    expect(fx.stats.authorizeRequests[0].client_id).toBe('my-app');
    expect(fx.stats.tokenRequests[0].clientId).toBe('my-app');
  });

  it('finds OpenID discovery and resource metadata at .well-known when the challenge names none', async () => {
    const { fx, dir, logger } = await setup({ discovery: 'oidc', prmInHeader: false });
    const c = await client(fx, fixtureAuth(fx, dir, logger));
    cleanups.push(() => c.t.close());
    expect((await c.call('initialize', INIT_PARAMS)).result).toBeDefined();
    expect(fx.stats.authorizations).toBe(1);
  });

  it('steps up on 403 insufficient_scope and the call then succeeds', async () => {
    const { fx, dir, logger } = await setup();
    const c = await client(fx, fixtureAuth(fx, dir, logger));
    cleanups.push(() => c.t.close());
    await c.call('initialize', INIT_PARAMS);
    const r = await c.call('tools/call', { name: 'admin_task', arguments: {} });
    expect(JSON.stringify(r.result)).toContain('admin_task: ok');
    expect(fx.stats.authorizations).toBe(2);
    expect(fx.stats.authorizeRequests[1].scope.split(' ')).toEqual(expect.arrayContaining(['mcp', 'admin']));
  });
});

describe('servers of the 2025-03-26 spec (no protected resource metadata)', () => {
  it('signs in with the metadata at the origin, whose issuer is a path under it', async () => {
    const { fx, dir, logger } = await setup({ prm: false });
    const c = await client(fx, fixtureAuth(fx, dir, logger));
    cleanups.push(() => c.t.close());
    expect((await c.call('initialize', INIT_PARAMS)).result).toMatchObject({ serverInfo: { name: 'oauth-fixture' } });
    expect(fx.stats.authorizations).toBe(1);
    expect(fx.stats.codeExchanges).toBe(1);
    // No resource metadata, so no RFC 8707 resource (as the SDK does).
    expect(fx.stats.authorizeRequests[0].resource).toBeUndefined();
  });

  it('signs in with the default /authorize, /token and /register when it publishes no metadata at all', async () => {
    const { fx, dir, logger } = await setup({ prm: false, asMetadata: false });
    const c = await client(fx, fixtureAuth(fx, dir, logger));
    cleanups.push(() => c.t.close());
    expect((await c.call('initialize', INIT_PARAMS)).result).toMatchObject({ serverInfo: { name: 'oauth-fixture' } });
    expect(fx.stats.registrations).toBe(1);
    expect(fx.stats.codeExchanges).toBe(1);
  });

  it('still refuses metadata naming another issuer where the protected resource metadata named the authorization server', async () => {
    const { fx, dir, logger, lines } = await setup({ metadataIssuer: 'http://127.0.0.1:1/elsewhere' });
    const auth = fixtureAuth(fx, dir, logger);
    const c = await client(fx, auth);
    cleanups.push(() => c.t.close());
    await expect(c.call('initialize', INIT_PARAMS)).rejects.toThrow(/sign in to .*names another issuer/);
    expect(lines.join('\n')).toMatch(
      /sign-in to 127\.0\.0\.1:\d+ failed: the authorization server metadata names another issuer/,
    );
    expect(fx.stats.registrations + fx.stats.authorizations).toBe(0);
    expect(auth.state).toBe('needs-auth');
  });
});

describe('refusals', () => {
  it('refuses an authorization answer with the wrong iss: no tokens kept', async () => {
    const { fx, dir, logger, lines } = await setup({ wrongIss: true });
    const auth = fixtureAuth(fx, dir, logger);
    const c = await client(fx, auth);
    cleanups.push(() => c.t.close());
    await expect(c.call('initialize', INIT_PARAMS)).rejects.toThrow(/sign in to .*iss mismatch/);
    expect(fx.stats.codeExchanges).toBe(0);
    expect(auth.state).toBe('needs-auth');
    expect(lines.join('\n')).toMatch(/iss mismatch/);
    const stored = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => readFileSync(join(dir, f), 'utf8'));
    expect(stored.join('')).not.toContain('access_token');
  });
});
