// MCP Apps views over the app's IPC, through the built main process with a fake electron and
// its real bridge: the page asks for a kept view (`mcp:app:view`) and gets it framed from the
// app's own `qiming-app://sandbox/` origin; the view's `tools/call` and `resources/read`
// (`mcp:app:call`, `mcp:app:read`) reach its server through the bridge's view routes, so they
// pass the approval policy and are recorded under the same client as from a browser
// (`app view <server> <tool>`); malformed arguments and other frames are refused.
import { mkdirSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IPC_CHANNELS, type ActivityResult } from '../../src/shared/ipcContract.js';
import type { AppViewAnswer, AppViewResult } from '../../src/shared/appView.js';
import type { ActivityRecord } from '../../src/shared/activity.js';
import type { RuntimeStatus } from '../../src/shared/status.js';
import { APP_VIEW_SANDBOX_URL } from '../../src/main/app/appViewProtocol.js';
import { ensureCli, FIXTURES, removeTempDirs, tempDir, waitFor, writeConfig } from './mainHarness.js';
import { MAIN, startFakeMain, stopFakeMain, type FakeMain } from './fakeMain.js';

let app: FakeMain | undefined;
const pids = new Set<number>();

afterAll(async () => {
  const left = await stopFakeMain(app, pids);
  removeTempDirs();
  expect(left).toEqual([]);
});

describe('MCP Apps views over the app’s IPC (built main, fake electron)', () => {
  it('hands a kept view framed from qiming-app://sandbox/, and its calls go through the bridge', async () => {
    ensureCli();
    expect(existsSync(MAIN), 'dist/main/main.cjs (tests/globalSetup.ts builds it)').toBe(true);
    const root = tempDir();
    const ran = join(root, 'ran.txt');
    mkdirSync(join(root, 'userData'), { recursive: true });
    writeConfig(join(root, 'userData', 'mcp.json'), {
      mcpServers: {
        notes: {
          command: process.execPath,
          args: [join(FIXTURES, 'appView', 'appViewServer.mjs'), '--ran', ran],
          approval: { declared: 'deny' },
        },
      },
    });
    app = startFakeMain(root);
    pids.add(app.child.pid!);
    const { invoke } = app;
    const status = await waitFor(
      async () => {
        const s = (await invoke(IPC_CHANNELS.getStatus)).value as RuntimeStatus | undefined;
        return s?.servers.find((x) => x.id === 'notes')?.state === 'ready' ? s : undefined;
      },
      30_000,
      `a ready bridge and server (stderr: ${app.stderr().slice(-2000)})`,
    );
    for (const p of [status.bridge.pid, ...status.servers.map((x) => x.pid)]) if (p) pids.add(p);

    // A call of the tool with a view (the panel's Test), kept by the bridge: its key is in the activity.
    expect((await invoke(IPC_CHANNELS.toolCall, 'notes', 'show_note', { text: 'in the app' })).value).toMatchObject({
      ok: true,
    });
    const records = async () =>
      (
        (await invoke(IPC_CHANNELS.activity, { server: 'notes' })).value as ActivityResult & {
          records?: ActivityRecord[];
        }
      ).records ?? [];
    const shown = await waitFor(
      async () => (await records()).find((r) => r.name === 'show_note' && r.app?.view),
      15_000,
      'the call recorded with its view',
    );
    const key = shown.app!.view!;

    const asked = await invoke(IPC_CHANNELS.appView, key);
    expect(asked.error).toBeUndefined();
    const got = asked.value as AppViewResult;
    if (!got.ok) throw new Error(`the view was refused: ${got.error}`);
    expect(got.view).toMatchObject({
      server: 'notes',
      tool: 'show_note',
      arguments: { text: 'in the app' },
      sandbox: APP_VIEW_SANDBOX_URL,
      resource: { uri: 'ui://notes/view.html' },
    });
    expect(got.view.resource.html).toBe(readFileSync(join(FIXTURES, 'appView', 'noteView.html'), 'utf8'));
    expect(got.view.result?.content).toEqual([{ type: 'text', text: 'note: in the app' }]);

    // The view's calls: its app-only tool runs; a tool the policy denies is denied, as in a browser.
    const refreshed = (await invoke(IPC_CHANNELS.appViewCall, key, 'app_refresh', {})).value as AppViewAnswer;
    expect(refreshed).toMatchObject({ ok: true, result: { content: [{ type: 'text', text: 'refreshed 1' }] } });
    const denied = (await invoke(IPC_CHANNELS.appViewCall, key, 'declared', {})).value as AppViewAnswer;
    expect(denied).toMatchObject({ ok: true, result: { isError: true } });
    const read = (await invoke(IPC_CHANNELS.appViewRead, key, 'ui://notes/view.html')).value as AppViewAnswer;
    expect(read).toMatchObject({ ok: true, result: { contents: [{ uri: 'ui://notes/view.html' }] } });
    const client = 'app view notes show_note';
    const theView = await waitFor(
      async () => {
        const r = (await records()).filter((x) => x.client === client && x.method !== 'initialize');
        return r.length >= 3 ? r : undefined;
      },
      15_000,
      "the view's requests in the activity",
    );
    expect(theView.map((r) => [r.method, r.name, r.outcome]).reverse()).toEqual([
      ['tools/call', 'app_refresh', 'ok'],
      ['tools/call', 'declared', 'denied'],
      ['resources/read', 'ui://notes/view.html', 'ok'],
    ]);
    expect(readFileSync(ran, 'utf8').split('\n').filter(Boolean)).toEqual(['show_note', 'app_refresh']);

    // Checked before the bridge: a key it never makes, a call without a name; a hash that is not one.
    expect((await invoke(IPC_CHANNELS.appView, '../status')).value).toEqual({ ok: false, error: 'invalid view key' });
    expect((await invoke(IPC_CHANNELS.appViewCall, key, '', {})).value).toEqual({
      ok: false,
      error: 'invalid tool name',
    });
    expect((await invoke(IPC_CHANNELS.appViewAccept, key, 'not-a-hash')).value).toEqual({
      ok: false,
      error: 'invalid view hash',
    });
    // Only the app's own page may ask.
    const stranger = await app.ask({
      type: 'invoke',
      channel: IPC_CHANNELS.appView,
      url: 'https://evil.example/',
      args: [key],
    });
    expect(stranger).toMatchObject({ ok: false, error: expect.stringContaining('sender not allowed') });

    app.child.send({ type: 'quit' });
    expect(await app.exited).toBe(0);
  });
});
