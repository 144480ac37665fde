// MCP Apps views in the app's window, through the built main process with a fake electron:
// the `qiming-app` scheme is privileged before ready and serves the sandbox page (the view's
// CSP from its `csp` parameter, framed only by file: pages) and its relay, nothing else; a
// view's `ui/open-link` from the app's page opens an http(s) URL in the system browser and
// refuses any other scheme before the opener, as a sign-in page is.
import { afterAll, describe, expect, it } from 'vitest';
import { IPC_CHANNELS } from '../../src/shared/ipcContract.js';
import type { RuntimeStatus } from '../../src/shared/status.js';
import { APP_VIEW_SANDBOX_URL, APP_VIEW_SCHEME } from '../../src/main/app/appViewProtocol.js';
import { removeTempDirs, waitFor } from './mainHarness.js';
import { fakeMainRoot, startFakeMain, stopFakeMain, type FakeMain } from './fakeMain.js';

type Answer = { status: number; headers: Record<string, string>; body: string };
let app: FakeMain | undefined;
const pids = new Set<number>();

afterAll(async () => {
  const left = await stopFakeMain(app, pids);
  removeTempDirs();
  expect(left).toEqual([]);
});

describe('MCP Apps views in the app (built main, fake electron)', () => {
  it('serves the sandbox origin on its own scheme and opens only http(s) links', async () => {
    const root = fakeMainRoot({ mcpServers: {} });
    app = startFakeMain(root);
    const { messages, ask, invoke } = app;
    pids.add(app.child.pid!);
    const get = async (url: string) => (await ask({ type: 'protocol', url })).value as Answer;

    const status = await waitFor(
      async () => {
        const s = (await invoke(IPC_CHANNELS.getStatus)).value as RuntimeStatus | undefined;
        return s?.bridge.state === 'ready' ? s : undefined;
      },
      30_000,
      `a ready bridge (stderr: ${app.stderr().slice(-2000)})`,
    );
    pids.add(status.bridge.pid!);

    const privileged = messages.find((m) => m.type === 'protocol.privileged') as { schemes: unknown[] } | undefined;
    expect(privileged?.schemes).toEqual([
      { scheme: APP_VIEW_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
    ]);
    const csp = encodeURIComponent(JSON.stringify({ connectDomains: ['https://api.example.com'] }));
    const page = await get(`${APP_VIEW_SANDBOX_URL}?csp=${csp}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain('https://api.example.com');
    expect(page.headers['content-security-policy']).toMatch(/frame-ancestors file:$/);
    expect(page.body).toContain('sandbox.js');
    expect((await get(`${APP_VIEW_SCHEME}://sandbox/sandbox.js`)).status).toBe(200);
    // Nothing else of the panel, and no other host of the scheme.
    expect((await get(`${APP_VIEW_SCHEME}://sandbox/index.html`)).status).toBe(404);
    expect((await get(`${APP_VIEW_SCHEME}://other/sandbox.html`)).status).toBe(404);

    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://attacker.example/share']) {
      const r = await invoke(IPC_CHANNELS.appOpenLink, url);
      expect(r.value).toEqual({ ok: false, error: expect.stringMatching(/only http\(s\) URLs go to a browser$/) });
    }
    expect(messages.filter((m) => m.type === 'openExternal')).toEqual([]);
    expect((await invoke(IPC_CHANNELS.appOpenLink, 'https://example.com/docs?a=1')).value).toEqual({ ok: true });
    expect(messages.filter((m) => m.type === 'openExternal').map((m) => m.url)).toEqual([
      'https://example.com/docs?a=1',
    ]);
    // Only the app's own page may ask.
    const stranger = await ask({
      type: 'invoke',
      channel: IPC_CHANNELS.appOpenLink,
      url: 'https://evil.example/',
      args: ['https://example.com/'],
    });
    expect(stranger).toMatchObject({ ok: false, error: expect.stringContaining('sender not allowed') });

    app.child.send({ type: 'quit' });
    expect(await app.exited).toBe(0);
  });
});
