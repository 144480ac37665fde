// Installs over the app's IPC: the real preload API (and the panel's PreloadInstall on it) over a
// fake ipcRenderer wired to the real install handlers (sender checks included) and the real
// InstallService, which asks a real bridge's /install routes, with a fixture registry on
// loopback. A registry search, a bundle sent as bytes, made again with values, installed (the
// entry and its folder) and uninstalled (both gone); an opened .mcpb planned and taken by the
// page; every argument checked before it leaves the main process.
import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBridges, startBridge, tempDir, type BridgeProcess } from '../helpers/bridgeProcess.js';
import { FixtureRegistry } from '../fixtures/registry/fixtureRegistry.js';
import { greeterBundle } from '../fixtures/registry/bundles.js';
import { registerInstallHandlers } from '../../src/main/app/installIpc.js';
import type { IpcInvokeEventLike, IpcMainLike } from '../../src/main/app/ipcHandlers.js';
import { createPreloadApi } from '../../src/main/app/preloadApi.js';
import { InstallService } from '../../src/main/install/installService.js';
import { bundlePathsIn } from '../../src/main/install/bundleFiles.js';
import { PreloadInstall, hasInstall } from '../../src/renderer/preloadInstall.js';
import { IPC_CHANNELS, INSTALL_CHANNELS } from '../../src/shared/ipcContract.js';
import { MAX_BUNDLE_BYTES, type OpenedBundle } from '../../src/shared/install.js';

const PAGE = 'file:///app/renderer/index.html';
const FIXTURES = join(__dirname, '../fixtures/registry');
const doc = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>;

let registry: FixtureRegistry;
let bridge: BridgeProcess;
let dir: string;
let file: string;
let dataDir: string;
let service: InstallService;
let handlers: Map<string, (e: IpcInvokeEventLike, ...args: unknown[]) => unknown>;
let off: () => void;
const page = new EventEmitter();
const invoked: string[] = [];
let notified = 0;

const servers = () => JSON.parse(readFileSync(file, 'utf8')).mcpServers as Record<string, unknown>;
const trusted = { senderFrame: { url: PAGE, parent: null } };
const invoke = (ch: string, ...args: unknown[]) => Promise.resolve().then(() => handlers.get(ch)!(trusted, ...args));

function panelInstall(): PreloadInstall {
  const api = createPreloadApi({
    invoke: (ch, ...args) => (invoked.push(ch), invoke(ch, ...args)),
    on: (ch, l) => page.on(ch, l),
    removeListener: (ch, l) => page.removeListener(ch, l),
  });
  if (!hasInstall(api)) throw new Error('the preload API has no install methods');
  return new PreloadInstall(api);
}

beforeAll(async () => {
  registry = new FixtureRegistry({ servers: [doc('memory.json'), doc('with-remote.json'), doc('pypi-time.json')] });
  await registry.listen();
  dir = tempDir('install-ipc-');
  file = join(dir, 'mcp.json');
  dataDir = join(dir, 'data');
  writeFileSync(file, JSON.stringify({ mcpServers: {} }));
  bridge = await startBridge({ config: file, env: { QIMING_REGISTRY_URL: registry.url, QIMING_DATA_DIR: dataDir } });
  handlers = new Map();
  const ipcMain: IpcMainLike = {
    handle: (ch, fn) => void handlers.set(ch, fn),
    removeHandler: (ch) => void handlers.delete(ch),
  };
  service = new InstallService({
    bridge: async () => ({ url: bridge.url, token: bridge.bearer }),
    // As main.ts does: the window is told, and the page takes the bundles.
    notify: () => {
      notified++;
      page.emit(IPC_CHANNELS.installOpened, { sender: {} });
    },
  });
  off = registerInstallHandlers(ipcMain, service, { pageUrl: PAGE });
}, 40_000);

afterAll(async () => {
  await cleanupBridges();
  await registry.close();
}, 30_000);

describe('installs over IPC', () => {
  it('registers exactly the install channels, for the app page only', async () => {
    expect([...handlers.keys()].sort()).toEqual([...INSTALL_CHANNELS].sort());
    const get = handlers.get(IPC_CHANNELS.installSearch)!;
    await expect(
      Promise.resolve().then(() => get({ senderFrame: { url: 'https://evil.example/', parent: null } }, '')),
    ).rejects.toThrow('sender not allowed');
    await expect(Promise.resolve().then(() => get({ senderFrame: { url: PAGE, parent: {} } }, ''))).rejects.toThrow(
      'sender not allowed',
    );
  });

  it('searches the registry through the bridge', async () => {
    const install = panelInstall();
    const r = await install.search('time');
    expect(r).toEqual({
      ok: true,
      registry: registry.url,
      servers: [expect.objectContaining({ name: 'io.github.example/time', transports: ['pypi (stdio)'] })],
    });
    expect(invoked.at(-1)).toBe(IPC_CHANNELS.installSearch);
  });

  it('a bundle sent as bytes: planned, made again with values, installed, then uninstalled with its files', async () => {
    const install = panelInstall();
    const bytes = new Uint8Array(await greeterBundle());
    const first = await install.plan({ bundle: { fileName: 'greeter.mcpb', data: bytes } });
    if (!first.ok) throw new Error(first.error);
    expect(first.plan.missing).toEqual(['API token']);
    const folder = join(dataDir, 'bundles', 'greeter');
    expect(first.plan.shown).toBe(`node ${folder}/server/index.js`);
    const second = await install.plan({ from: first.plan.planId, values: { token: 'tok-ipc-7' } });
    if (!second.ok) throw new Error(second.error);
    expect(second.plan.missing).toEqual([]);
    expect(JSON.stringify(second.plan)).not.toContain('tok-ipc-7');
    expect(servers()).toEqual({});

    const done = await install.confirm(second.plan.planId);
    expect(done).toEqual(expect.objectContaining({ ok: true, serverId: 'greeter' }));
    expect(servers().greeter).toEqual(
      expect.objectContaining({ args: ['${QIMING_DATA_DIR}/bundles/greeter/server/index.js'] }),
    );
    expect(existsSync(join(folder, 'server', 'index.js'))).toBe(true);
    expect(await install.installed()).toEqual({ ok: true, ids: ['greeter'] });

    expect(await install.uninstall('greeter')).toEqual(expect.objectContaining({ ok: true }));
    expect(servers().greeter).toBeUndefined();
    expect(existsSync(folder)).toBe(false);
    expect(await install.installed()).toEqual({ ok: true, ids: [] });
    expect(invoked).toEqual(
      expect.arrayContaining([...INSTALL_CHANNELS.filter((c) => c !== IPC_CHANNELS.installTakeOpened)]),
    );
  }, 60_000);

  it('an opened .mcpb is planned in the main process and taken by the page; a bad one says why', async () => {
    const path = join(dir, 'Greeter Bundle.mcpb');
    writeFileSync(path, await greeterBundle());
    writeFileSync(join(dir, 'broken.mcpb'), 'not a zip');
    expect(
      bundlePathsIn(['/opt/app/qiming', '--flag', 'Greeter Bundle.mcpb', 'notes.txt', '/x/broken.MCPB'], dir),
    ).toEqual([path, '/x/broken.MCPB']);
    const install = panelInstall();
    const seen: OpenedBundle[][] = [];
    const stop = install.onOpenedBundles((list) => seen.push(list));
    await service.openBundleFile(path);
    await service.openBundleFile(join(dir, 'broken.mcpb'));
    await service.openBundleFile(join(dir, 'missing.mcpb'));
    await service.openBundleFile(join(dir, 'notes.txt'));
    expect(notified).toBe(4);
    await expect.poll(() => seen.flat().length, { timeout: 10_000 }).toBe(4);
    stop();
    const got = seen.flat();
    expect(got[0]).toEqual({ fileName: 'Greeter Bundle.mcpb', plan: expect.objectContaining({ name: 'greeter' }) });
    expect('plan' in got[0]! && got[0].plan.source).toEqual({ kind: 'bundle', file: 'Greeter Bundle.mcpb' });
    expect(got.slice(1)).toEqual([
      { fileName: 'broken.mcpb', error: expect.stringMatching(/^not a valid bundle \(zip\)/) },
      { fileName: 'missing.mcpb', error: 'cannot read it: ENOENT' },
      { fileName: 'notes.txt', error: 'not a .mcpb file' },
    ]);
    // Taken once: the queue is empty now.
    expect(await invoke(IPC_CHANNELS.installTakeOpened)).toEqual([]);
    expect(servers()).toEqual({});
  }, 30_000);

  it('checks every argument before it leaves the main process', async () => {
    const bad = (error: string) => ({ ok: false, error });
    expect(await invoke(IPC_CHANNELS.installConfirm, 'nope')).toEqual(bad('invalid plan id'));
    expect(await invoke(IPC_CHANNELS.installUninstall, '../etc')).toEqual(bad('invalid server id'));
    expect(await invoke(IPC_CHANNELS.installSearch, 42)).toEqual(
      bad('the search must be a string of at most 200 characters'),
    );
    expect(await invoke(IPC_CHANNELS.installPlan, { from: 'x'.repeat(32), values: {} })).toEqual(
      bad('invalid plan id'),
    );
    expect(await invoke(IPC_CHANNELS.installPlan, { registry: { name: 'a/b' }, values: { k: 1 } })).toEqual(
      bad('values must map names to strings'),
    );
    expect(await invoke(IPC_CHANNELS.installPlan, { bundle: { fileName: 'a.mcpb', data: 'UEsDBA==' } })).toEqual(
      bad("expected the bundle's bytes"),
    );
    expect(
      await invoke(IPC_CHANNELS.installPlan, {
        bundle: { fileName: 'a.mcpb', data: new Uint8Array(MAX_BUNDLE_BYTES + 1) },
      }),
    ).toEqual(bad('the bundle is refused: it is over 64 MiB, the largest .mcpb the installer takes'));
    expect(await invoke(IPC_CHANNELS.installPlan, { something: true })).toEqual(
      bad('expected {registry}, {bundle} or {from}'),
    );
    // A plan id the bridge does not know is its clean 404, not an exception.
    expect(await invoke(IPC_CHANNELS.installConfirm, 'a'.repeat(32))).toEqual({
      ok: false,
      error: 'no such plan (it was used, or it expired): make the plan again',
    });
    off();
    expect(handlers.size).toBe(0);
  });
});
