// McpRuntime.signIn/signOut with the real bridge and the local OAuth fixture: the bridge
// names the authorization page, the runtime hands it to its opener (the app's
// shell.openExternal; here the fixture browser), the server becomes ready; the token store
// is encrypted under the app's key; the key itself is kept by (fake) safeStorage.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import { oauthStoreKey, type SafeStorageLike } from '../../src/main/config/oauthStoreKey.js';
import { ensureCli, memoryLogger, removeTempDirs, tempDir, waitFor, writeConfig } from './mainHarness.js';
import { startFixture, type Fixture } from '../proxy/oauth/oauthKit.js';
import { FIXTURES } from '../helpers/paths.js';
import { scaled } from '../helpers/loadScale.js';

const run = promisify(execFile);
let cli: string;
const runtimes: McpRuntime[] = [];
const fixtures: Fixture[] = [];
beforeAll(() => {
  cli = ensureCli();
});
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.stop({ deadlineMs: 2000 });
  for (const f of fixtures.splice(0)) await f.close();
  removeTempDirs();
});

const fakeSafe = (available = true): SafeStorageLike & { calls: number } => ({
  calls: 0,
  isEncryptionAvailable: () => available,
  encryptString(s) {
    this.calls++;
    return Buffer.from(`enc:${Buffer.from(s).toString('base64')}`);
  },
  decryptString: (b) => Buffer.from(String(b).slice(4), 'base64').toString(),
});

describe('the app key of the token store', () => {
  it('is made once, kept encrypted (0600), and read back the same; none without safeStorage', () => {
    const dir = tempDir();
    const safe = fakeSafe();
    const log = memoryLogger();
    const key = oauthStoreKey(dir, safe, log.logger);
    expect(Buffer.from(key!, 'base64')).toHaveLength(32);
    expect(oauthStoreKey(dir, safe, log.logger)).toBe(key);
    expect(safe.calls).toBe(1);
    const file = join(dir, 'oauth-store.key');
    expect(readFileSync(file, 'utf8')).not.toContain(key!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(oauthStoreKey(tempDir(), fakeSafe(false), log.logger)).toBeUndefined();
    expect(log.lines.join('\n')).toMatch(
      /warn safeStorage cannot encrypt here: sign-in tokens are kept in plain files/,
    );
  });

  it("is none where safeStorage's only backend is its built-in password (Linux basic_text)", () => {
    const dir = tempDir();
    const log = memoryLogger();
    const basic = { ...fakeSafe(), getSelectedStorageBackend: () => 'basic_text' };
    expect(oauthStoreKey(dir, basic, log.logger)).toBeUndefined();
    expect(existsSync(join(dir, 'oauth-store.key'))).toBe(false);
    expect(log.lines.join('\n')).toMatch(/warn safeStorage has no keyring here \(basic_text\)/);
    const keyring = { ...fakeSafe(), getSelectedStorageBackend: () => 'gnome_libsecret' };
    expect(Buffer.from(oauthStoreKey(dir, keyring, log.logger)!, 'base64')).toHaveLength(32);
  });
});

describe('McpRuntime sign-in', () => {
  it('opens the page with its opener, the server gets ready, tokens are encrypted, sign-out forgets them', async () => {
    const fx = await startFixture();
    fixtures.push(fx);
    const dir = tempDir();
    const oauthDir = join(dir, 'oauth');
    const configFile = join(dir, 'mcp.json');
    writeConfig(configFile, { mcpServers: { secure: { url: fx.url } } });
    const opened: string[] = [];
    const rtLog = memoryLogger();
    const key = oauthStoreKey(dir, fakeSafe(), memoryLogger().logger)!;
    const runtime = new McpRuntime({
      configFile,
      cliPath: cli,
      logger: rtLog.logger,
      watchConfig: false,
      env: { QIMING_OAUTH_DIR: oauthDir, QIMING_OAUTH_KEY: key, QIMING_OAUTH_BROWSER: '/bin/false' },
      openExternal: async (url) => {
        opened.push(url);
        await run(process.execPath, [join(FIXTURES, 'oauth', 'browser.mjs'), url]);
      },
    });
    runtimes.push(runtime);
    await runtime.start();
    await runtime.whenReady();
    expect(runtime.status().servers[0]).toMatchObject({ id: 'secure', state: 'needs-auth', auth: 'needs-auth' });
    // An agent session opened now does not get it (its first list would wait for it).
    expect(runtime.mcpServerPlan().bridgeIds).toEqual([]);
    const r = await runtime.signIn('secure');
    expect(r).toMatchObject({ ok: true, url: expect.stringContaining('/as/authorize?') });
    expect(opened).toEqual([r.url]);
    await waitFor(() => runtime.status().servers[0]?.state === 'ready', scaled(15_000), 'ready after sign-in');
    expect(runtime.status().servers[0].auth).toBe('signed-in');
    expect(runtime.mcpServerPlan().bridgeIds).toEqual(['secure']);
    const files = readdirSync(oauthDir).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    const raw = readFileSync(join(oauthDir, files[0]));
    expect(raw.subarray(0, 4).toString()).toBe('QMO1');
    for (const s of fx.secrets()) expect(raw.toString('latin1')).not.toContain(s);
    expect(JSON.stringify(runtime.status())).not.toMatch(new RegExp(fx.secrets().join('|')));

    expect(await runtime.signIn('nope')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/unknown server "nope"/),
    });
    expect(await runtime.signOut('secure')).toEqual({ ok: true });
    expect(readdirSync(oauthDir).filter((f) => f.endsWith('.json'))).toEqual([]);
    await waitFor(() => runtime.status().servers[0]?.state === 'needs-auth', 10_000, 'needs-auth after sign-out');
  });
});
