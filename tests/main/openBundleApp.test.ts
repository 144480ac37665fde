// The built Electron entry (dist/main/main.cjs) under the fake `electron`, asked to open .mcpb
// files the three ways an OS does: a path on its command line at launch (Windows, Linux), a
// second instance's command line, and macOS's open-file event. Each is planned in the main
// process through the app's own bridge and waits for the page, which is told and takes it over
// IPC; a confirm over IPC installs it into the app's data folder and an uninstall removes it.
// A second instance (the lock held elsewhere) quits at once and starts nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IPC_CHANNELS } from '../../src/shared/ipcContract.js';
import type { OpenedBundle } from '../../src/shared/install.js';
import { greeterBundle, greeterManifest } from '../fixtures/registry/bundles.js';
import {
  ensureCli,
  killQuietly,
  notRunning,
  removeTempDirs,
  ROOT,
  tempDir,
  waitAllNotRunning,
  waitFor,
} from './mainHarness.js';
import { MAIN, startFakeMain } from './fakeMain.js';

const children: ChildProcess[] = [];
const pids = new Set<number>();

beforeAll(() => {
  ensureCli();
  if (!existsSync(MAIN))
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), 'main'], { cwd: ROOT, stdio: 'inherit' });
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) killQuietly(c.pid);
  for (const p of pids) if (!notRunning(p)) killQuietly(p);
  const left = await waitAllNotRunning([...pids], 3000);
  removeTempDirs();
  expect(left).toEqual([]);
});

function launch(root: string, args: string[], env: Record<string, string> = {}) {
  const app = startFakeMain(root, { args, env, resultMs: 60_000 });
  children.push(app.child);
  pids.add(app.child.pid!);
  const invoke = async (channel: string, ...a: unknown[]) => {
    const r = await app.invoke(channel, ...a);
    if (!r.ok) throw new Error(String(r.error));
    return r.value;
  };
  const told = () =>
    app.messages.filter((m) => m.type === 'webContents.send' && m.channel === IPC_CHANNELS.installOpened).length;
  return { child: app.child, messages: app.messages, exited: app.exited, invoke, told };
}

describe('the built app opens .mcpb files', () => {
  it('from its command line, a second instance and open-file: each planned, taken by the page, installable', async () => {
    const root = tempDir();
    const launchPath = join(root, 'greeter.mcpb');
    writeFileSync(launchPath, await greeterBundle());
    const app = launch(root, [launchPath]);
    const dataDir = join(root, 'userData', 'mcp');

    // The path on the command line: planned once the bridge runs, the page told.
    await waitFor(() => app.told() >= 1, 60_000, 'the page told of the launch bundle');
    const first = (await app.invoke(IPC_CHANNELS.installTakeOpened)) as OpenedBundle[];
    expect(first).toHaveLength(1);
    const opened = first[0]!;
    if (!('plan' in opened)) throw new Error(opened.error);
    const folder = join(dataDir, 'bundles', 'greeter');
    expect(opened.fileName).toBe('greeter.mcpb');
    expect(opened.plan.folder).toBe(folder);
    expect(opened.plan.missing).toEqual(['API token']);
    expect(await app.invoke(IPC_CHANNELS.installTakeOpened)).toEqual([]);

    // A second instance's command line (relative to its own folder), and macOS's open-file.
    const otherPath = join(root, 'other.mcpb');
    writeFileSync(otherPath, await greeterBundle(greeterManifest({ name: 'other-greeter', display_name: 'Other' })));
    app.child.send({ type: 'second-instance', argv: ['/opt/qiming', '--some-flag', 'other.mcpb'], cwd: root });
    await waitFor(() => app.told() >= 2, 30_000, 'the page told of the second instance bundle');
    expect(app.messages.some((m) => m.type === 'window.focus')).toBe(true);
    app.child.send({ type: 'open-file', path: launchPath });
    await waitFor(() => app.told() >= 3, 30_000, 'the page told of the open-file bundle');
    expect(app.messages.find((m) => m.type === 'open-file')).toMatchObject({ prevented: true });
    app.child.send({ type: 'open-file', path: join(root, 'notes.txt') });
    await waitFor(
      () => app.messages.filter((m) => m.type === 'open-file').length === 2,
      10_000,
      'the second open-file',
    );
    expect(app.messages.filter((m) => m.type === 'open-file')[1]).toMatchObject({ prevented: false });
    const more = (await app.invoke(IPC_CHANNELS.installTakeOpened)) as OpenedBundle[];
    expect(more.map((b) => [b.fileName, 'plan' in b ? b.plan.name : b.error])).toEqual([
      ['other.mcpb', 'other-greeter'],
      ['greeter.mcpb', 'greeter'],
    ]);

    // The consent's values and Confirm, over IPC: installed into the app's data folder.
    const latest = more[1]!;
    if (!('plan' in latest)) throw new Error(latest.error);
    const withValues = (await app.invoke(IPC_CHANNELS.installPlan, {
      from: latest.plan.planId,
      values: { token: 'tok-app-1' },
    })) as { ok: boolean; plan: { planId: string; missing: string[] } };
    expect(withValues.plan.missing).toEqual([]);
    expect(await app.invoke(IPC_CHANNELS.installConfirm, withValues.plan.planId)).toMatchObject({
      ok: true,
      serverId: 'greeter',
    });
    const config = () => JSON.parse(readFileSync(join(root, 'userData', 'mcp.json'), 'utf8')).mcpServers;
    expect(config().greeter).toBeDefined();
    expect(existsSync(join(folder, 'server', 'index.js'))).toBe(true);
    await waitFor(
      async () => {
        const s = (await app.invoke(IPC_CHANNELS.getStatus)) as {
          servers: { id: string; state: string; pid?: number }[];
        };
        const g = s.servers.find((x) => x.id === 'greeter');
        if (g?.pid) pids.add(g.pid);
        for (const x of s.servers) if (x.pid) pids.add(x.pid);
        return g?.state === 'ready';
      },
      60_000,
      'greeter ready in the app',
    );
    expect(await app.invoke(IPC_CHANNELS.installUninstall, 'greeter')).toMatchObject({ ok: true });
    expect(config().greeter).toBeUndefined();
    expect(existsSync(folder)).toBe(false);

    const status = (await app.invoke(IPC_CHANNELS.getStatus)) as { bridge: { pid?: number } };
    if (status.bridge.pid) pids.add(status.bridge.pid);
    app.child.send({ type: 'quit' });
    expect(await app.exited).toBe(0);
    expect(await waitAllNotRunning([...pids], 5000)).toEqual([]);
  }, 150_000);

  it('a second instance quits at once, starting no runtime and no window', async () => {
    const root = tempDir();
    const second = launch(root, [join(root, 'x.mcpb')], { FAKE_ELECTRON_SECOND: '1' });
    expect(await second.exited).toBe(0);
    expect(second.messages.some((m) => m.type === 'window')).toBe(false);
    expect(existsSync(join(root, 'userData', 'mcp.json'))).toBe(false);
  }, 30_000);
});
