// The app never hands the system browser anything but an http(s) URL: openSignIn (the one
// path from a bridge's sign-in answer to the opener) refuses any other page before the
// opener, and the built main process under a fake electron, signing in to a server whose
// authorization server names `file:///etc/passwd` as its sign-in page, never calls
// shell.openExternal and answers the page with the error.
import { afterAll, describe, expect, it } from 'vitest';
import { IPC_CHANNELS } from '../../src/shared/ipcContract.js';
import type { RuntimeStatus } from '../../src/shared/status.js';
import { openSignIn } from '../../src/main/runtime/runtimeSignIn.js';
import { externalUrl } from '../../src/main/runtime/externalUrl.js';
import { startFixture, type Fixture } from '../proxy/oauth/oauthKit.js';
import { memoryLogger, removeTempDirs, waitFor } from './mainHarness.js';
import { fakeMainRoot, startFakeMain, stopFakeMain, type FakeMain } from './fakeMain.js';

const NOT_WEB = [
  'file:///etc/passwd?response_type=code',
  'ms-msdt:/id PCWDiagnostic /skip force /param "IT_BrowseForFile=/../../calc.exe"',
  'smb://attacker.example/share',
  'search-ms:query=x&crumb=location:\\\\attacker.example\\share',
  'javascript:alert(1)',
  'https://auth"example.com/',
  'not a url',
];

describe('openSignIn', () => {
  it('refuses a page that is not an http(s) URL: the opener is not called, the error names the server, the URL is not logged', async () => {
    for (const url of NOT_WEB) {
      const opened: string[] = [];
      const log = memoryLogger();
      const r = await openSignIn(
        'evil',
        Promise.resolve({ ok: true, url }),
        async (u) => void opened.push(u),
        log.logger,
      );
      expect(r).toEqual({
        ok: false,
        error: expect.stringMatching(
          /^sign-in to "evil" refused, the authorization page: .* is not opened: only http\(s\) URLs go to a browser$/,
        ),
      });
      expect(opened).toEqual([]);
      expect(log.lines).toEqual([`warn ${r.error}`]);
      // Without an opener it is not offered for opening by hand either.
      const bare = memoryLogger();
      expect((await openSignIn('evil', Promise.resolve({ ok: true, url }), undefined, bare.logger)).ok).toBe(false);
      expect(bare.lines.join('\n')).not.toMatch(/open this URL/);
    }
  });

  it('opens an http(s) page, serialized', async () => {
    const opened: string[] = [];
    const url = 'https://auth.example.com/authorize?state=a|b^c';
    expect(
      await openSignIn(
        'ok',
        Promise.resolve({ ok: true, url }),
        async (u) => void opened.push(u),
        memoryLogger().logger,
      ),
    ).toEqual({ ok: true, url });
    expect(opened).toEqual([url]);
    expect(externalUrl('HTTPS://Auth.Example.com/a b')).toBe('https://auth.example.com/a%20b');
  });
});

let app: FakeMain | undefined;
let fx: Fixture | undefined;
const pids = new Set<number>();

afterAll(async () => {
  const left = await stopFakeMain(app, pids);
  await fx?.close();
  removeTempDirs();
  expect(left).toEqual([]);
});

describe('the built main process with a fake electron', () => {
  it('signing in to a server whose sign-in page is a file: URL opens nothing and answers the error', async () => {
    fx = await startFixture({ authorizationEndpoint: 'file:///etc/passwd' });
    const root = fakeMainRoot({ mcpServers: { evil: { url: fx.url } } });
    app = startFakeMain(root, { env: { QIMING_OAUTH_BROWSER: '/bin/false' } });
    const { messages, invoke } = app;
    pids.add(app.child.pid!);

    const status = await waitFor(
      async () => {
        const s = (await invoke(IPC_CHANNELS.getStatus)).value as RuntimeStatus | undefined;
        return s?.bridge.state === 'ready' && s.servers[0]?.state === 'needs-auth' ? s : undefined;
      },
      30_000,
      `a ready bridge with evil in needs-auth (stderr: ${app.stderr().slice(-2000)})`,
    );
    pids.add(status.bridge.pid!);
    const r = await invoke(IPC_CHANNELS.signIn, 'evil');
    expect(r.value).toEqual({
      ok: false,
      error: expect.stringMatching(/sign-in to 127\.0\.0\.1:\d+ failed: the authorization server names a "file:" URL/),
    });
    expect(messages.filter((m) => m.type === 'openExternal')).toEqual([]);

    app.child.send({ type: 'quit' });
    expect(await app.exited).toBe(0);
    expect(messages.filter((m) => m.type === 'openExternal')).toEqual([]);
  });
});
