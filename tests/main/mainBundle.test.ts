// The built Electron entry (dist/main/main.cjs) booted under node with a fake `electron`
// module (tests/fixtures/fakeElectron.cjs): it writes the first-run config, starts the real
// bridge with the bundled default servers, opens a locked-down window on the panel page,
// serves IPC only to that page, and at quit holds the quit, stops everything, then exits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IPC_CHANNELS } from '../../src/shared/ipcContract.js';
import type { RuntimeStatus } from '../../src/shared/status.js';
import { ensureCli, removeTempDirs, ROOT, tempDir, waitFor, waitAllNotRunning } from './mainHarness.js';
import { MAIN, PAGE_URL, startFakeMain, stopFakeMain, type FakeMain } from './fakeMain.js';

let app: FakeMain | undefined;
const pids = new Set<number>();

beforeAll(() => {
  ensureCli();
  // tests/globalSetup.ts builds every target, this bundle included, before any test runs.
  if (!existsSync(MAIN))
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), 'main'], { cwd: ROOT, stdio: 'inherit' });
});

afterAll(async () => {
  const left = await stopFakeMain(app, pids);
  removeTempDirs();
  expect(left).toEqual([]);
});

describe('the built main process with a fake electron', () => {
  it('boots, serves its page only, and quits through the stop sequence leaving no process', async () => {
    const root = tempDir();
    app = startFakeMain(root);
    const { messages, child, exited } = app;
    /** An IPC call as the frame at `url`. */
    const invoke = (channel: string, url: string, ...args: unknown[]) =>
      app!.ask({ type: 'invoke', channel, url, args });
    pids.add(child.pid!);

    // A locked-down window on the panel page.
    const win = await waitFor(() => messages.find((m) => m.type === 'window'), 10_000, 'the window');
    expect((win.options as { webPreferences: unknown }).webPreferences).toEqual({
      preload: join(ROOT, 'dist', 'main', 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    });
    const page = join(ROOT, 'dist', 'renderer', 'index.html');
    // Each step is its own IPC message: wait for it rather than assume it came with the window.
    const loaded = await waitFor(() => messages.find((m) => m.type === 'loadFile'), 10_000, 'loadFile');
    expect(loaded.file).toBe(page);
    const opener = await waitFor(
      () => messages.find((m) => m.type === 'windowOpenHandler'),
      10_000,
      'the window open handler',
    );
    expect(opener.result).toEqual({ action: 'deny' });

    // First run: the default config in userData, with the bundled servers ready.
    expect(existsSync(join(root, 'userData', 'mcp.json'))).toBe(true);
    const pageUrl = PAGE_URL;
    const status = await waitFor(
      async () => {
        const r = await invoke(IPC_CHANNELS.getStatus, pageUrl);
        const s = r.value as RuntimeStatus | undefined;
        return s?.bridge.state === 'ready' ? s : undefined;
      },
      30_000,
      `a ready bridge (stderr: ${app.stderr().slice(-2000)})`,
    );
    expect(status.servers.map((s) => [s.id, s.state])).toEqual([
      ['memory', 'ready'],
      ['filesystem', 'ready'],
    ]);
    for (const p of [status.bridge.pid!, ...status.servers.map((s) => s.pid!)]) pids.add(p);
    // The app read the login-shell PATH once and handed it to the bridge (loginEnv.ts).
    expect(status.servers.map((s) => s.launch?.pathFrom)).toEqual(['handed', 'handed']);
    expect(messages.some((m) => m.type === 'webContents.send' && m.channel === IPC_CHANNELS.status)).toBe(true);

    // Only the app's own page may call.
    expect(await invoke(IPC_CHANNELS.getStatus, 'https://evil.example/')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/sender not allowed/),
    });
    expect(await invoke(IPC_CHANNELS.getStatus, pageUrl)).toMatchObject({ ok: true });

    // The proxy log tail was started in the logs folder.
    await waitFor(() => existsSync(join(root, 'userData', 'logs', 'mcp-proxy.log')), 5000, 'the proxy log file');

    // Quit: the first before-quit is held, everything stops, then the app quits for real.
    child.send({ type: 'quit' });
    expect(await exited).toBe(0);
    const quits = messages.filter((m) => m.type === 'before-quit').map((m) => m.prevented);
    expect(quits).toEqual([true, false]);
    expect(messages.some((m) => m.type === 'will-quit')).toBe(true);
    expect(await waitAllNotRunning([...pids], 3000)).toEqual([]);
    // electron-log wrote the bridge's lines to the main log file.
    const mainLog = readFileSync(join(root, 'userData', 'logs', 'main.log'), 'utf8');
    expect(mainLog).toMatch(/\(bridge\)/);
    expect(mainLog).toMatch(/\(main\)\s+(login shell \S+ read in \d+ ms|cannot read the login shell's PATH)/);
  });
});
