// One browser flow per server, shared by every session; the callback takes only its own state.
import { afterEach, describe, expect, it } from 'vitest';
import { CallbackServer, derivedCallbackPort } from '../../../src/proxy/oauth/callbackServer.js';
import { client, fixtureAuth, INIT_PARAMS, memoryLogger, startFixture, tempOAuthDir } from './oauthKit.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('one flow at a time', () => {
  it('three sessions refused at once share one sign-in', async () => {
    const fx = await startFixture();
    const tmp = tempOAuthDir();
    cleanups.push(() => fx.close(), tmp.remove);
    const { logger } = memoryLogger();
    let opened = 0;
    const auth = fixtureAuth(fx, tmp.dir, logger);
    const inner = (auth as unknown as { o: { opener: (u: string) => Promise<boolean> } }).o;
    const open = inner.opener;
    inner.opener = (u) => (opened++, open(u));
    const sessions = await Promise.all([1, 2, 3].map(() => client(fx, auth)));
    for (const s of sessions) cleanups.push(() => s.t.close());
    const answers = await Promise.all(sessions.map((s) => s.call('initialize', INIT_PARAMS)));
    for (const a of answers) expect(a.result).toBeDefined();
    expect(opened).toBe(1);
    expect(fx.stats.authorizations).toBe(1);
    expect(fx.stats.registrations).toBe(1);
  });
});

describe('the loopback callback', () => {
  it('ignores an answer with another state, takes the one with ours, and derives a stable port', async () => {
    const cb = await CallbackServer.listen([0], 'our-state');
    cleanups.push(() => cb.close());
    expect(cb.redirectUri).toBe(`http://127.0.0.1:${cb.port}/callback`);
    const forged = await fetch(`${cb.redirectUri}?code=evil&state=forged`);
    expect(forged.status).toBe(400);
    expect((await fetch(`http://127.0.0.1:${cb.port}/other`)).status).toBe(404);
    const ok = await fetch(`${cb.redirectUri}?code=good&state=our-state&iss=https%3A%2F%2Fas.example`);
    expect(ok.status).toBe(200);
    expect(await cb.result).toEqual({ code: 'good', iss: 'https://as.example' });
    expect(derivedCallbackPort('https://mcp.example/mcp')).toBe(derivedCallbackPort('https://mcp.example/mcp'));
    expect(derivedCallbackPort('https://mcp.example/mcp')).toBeGreaterThanOrEqual(20_000);
    expect(derivedCallbackPort('https://mcp.example/mcp')).toBeLessThan(30_000);
  });

  it('says which port is taken', async () => {
    const cb = await CallbackServer.listen([0], 's');
    cleanups.push(() => cb.close());
    await expect(CallbackServer.listen([cb.port], 's')).rejects.toThrow(
      new RegExp(`callback port ${cb.port} is in use`),
    );
  });
});
