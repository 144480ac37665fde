// Sign-in tokens in the secret store, through the real bridge (the built CLI) and a real
// Secret Service (a private gnome-keyring on a private session bus): a sign-in puts the
// client and tokens in one keychain item and its record file keeps neither; a token file
// written where there was no store is moved on the bridge's first read with one (the item
// written, the file rewritten without them); sign-out removes the item. Without a store the
// tokens stay in the 0600 file, and the status says which store holds them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../helpers/proxyCli.js';
import { cleanupBridges, startBridge, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { useSecretService } from '../../helpers/secretService.js';
import { waitFor } from '../../helpers/waitFor.js';
import { BROWSER, startFixture, tempOAuthDir, type Fixture } from './oauthKit.js';

const keyring = useSecretService();
const cleanups: (() => unknown)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await cleanupBridges();
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const fx: Fixture = await startFixture();
  const tmp = tempOAuthDir();
  cleanups.push(() => fx.close(), tmp.remove);
  return { fx, dir: tmp.dir, env: { QIMING_OAUTH_BROWSER: BROWSER, QIMING_OAUTH_DIR: tmp.dir } };
}

/** The token folder's record files, parsed. */
function records(dir: string): { file: string; text: string; kept?: string }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => {
      const text = readFileSync(join(dir, f), 'utf8');
      return { file: join(dir, f), text, kept: (JSON.parse(text) as { kept?: string }).kept };
    });
}

async function signIn(b: BridgeProcess): Promise<void> {
  const res = await b.fetch('/servers/secure/sign-in', { method: 'POST' });
  expect(res.status).toBe(200);
  await b.waitServer('secure', (s) => s.state === 'ready' && s.auth === 'signed-in', 15_000, 'ready after sign-in');
}

const noBus = (dir: string) => ({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'no-bus')}` });

describe('sign-in tokens and the secret store', () => {
  it('with a keychain: the tokens go to one item, the file keeps neither, sign-out removes the item', async () => {
    const { fx, dir, env } = await setup();
    const b = await startBridge({
      config: { mcpServers: { secure: { url: fx.url } } },
      env: { ...env, ...keyring.env },
    });
    await signIn(b);
    expect((await b.server('secure')).tokenStore).toBe('keyring');

    const [rec] = records(dir);
    expect(rec.kept).toMatch(/^oauth\.[0-9a-f]{32}$/);
    expect(statSync(rec.file).mode & 0o777).toBe(0o600);
    for (const s of fx.secrets()) expect(rec.text).not.toContain(s);
    const item = keyring.get(rec.kept!);
    expect(item).toBeDefined();
    const kept = JSON.parse(item!) as { tokens: { access_token: string }; client: { client_id: string } };
    expect(fx.secrets()).toContain(kept.tokens.access_token);
    expect(typeof kept.client.client_id).toBe('string');

    const out = await b.fetch('/servers/secure/sign-out', { method: 'POST' });
    expect(await out.json()).toEqual({ ok: true });
    expect(records(dir)).toEqual([]);
    // The removal is the store's next step after the file's: poll for it.
    await waitFor(() => keyring.get(rec.kept!) === undefined, 10_000, 'the keychain item removed');
    for (const s of fx.secrets()) expect(b.stderr + JSON.stringify(await b.status())).not.toContain(s);
  });

  it('without a store the tokens stay in the 0600 file; the first read with one moves them there', async () => {
    const { fx, dir, env } = await setup();
    const config = { mcpServers: { secure: { url: fx.url } } };
    const b = await startBridge({ config, env: { ...env, ...noBus(dir) } });
    await signIn(b);
    expect((await b.server('secure')).tokenStore).toBe('file');
    expect(b.stderr).toContain('sign-in tokens stay in their 0600 files');
    const [before] = records(dir);
    expect(before.kept).toBeUndefined();
    expect(statSync(before.file).mode & 0o777).toBe(0o600);
    expect(fx.secrets().some((s) => before.text.includes(s))).toBe(true);
    b.child.kill('SIGTERM');
    await b.waitExit(10_000);

    // The same folder, now with a keychain: the server is ready with the tokens it had, and they moved.
    const b2 = await startBridge({ config, env: { ...env, ...keyring.env, QIMING_OAUTH_BROWSER: '/bin/false' } });
    expect(b2.ready!.servers[0]).toMatchObject({ id: 'secure', state: 'ready' });
    expect(fx.stats.authorizations).toBe(1);
    expect((await b2.server('secure')).tokenStore).toBe('keyring');
    const [after] = records(dir);
    expect(after.file).toBe(before.file);
    expect(after.kept).toMatch(/^oauth\.[0-9a-f]{32}$/);
    for (const s of fx.secrets()) expect(after.text).not.toContain(s);
    const item = JSON.parse(keyring.get(after.kept!)!) as { tokens: { access_token: string } };
    expect(before.text).toContain(item.tokens.access_token);
    for (const s of fx.secrets()) expect(b2.stderr + JSON.stringify(await b2.status())).not.toContain(s);
  });
});
