// attachToApp (src/main/app/attachToApp.ts) with a real McpRuntime and bridge, and stand-ins
// for Electron's app, ipcMain and webContents (the narrow interfaces it takes): handlers at
// once and only for the trusted pages, the start at ready, status pushed to live targets
// only, the quit that stops the runtime and what else was given, a failed start reported.
import { afterEach, describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { attachToApp, type ElectronAppLike } from '../../src/main/app/attachToApp.js';
import type { IpcInvokeEventLike, IpcMainLike } from '../../src/main/app/ipcHandlers.js';
import type { PreventableEvent } from '../../src/main/app/quitSequence.js';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import { IPC_CHANNELS } from '../../src/shared/ipcContract.js';
import {
  ensureCli,
  killQuietly,
  memoryEntry,
  memoryLogger,
  notRunning,
  removeTempDirs,
  tempDir,
  waitAllNotRunning,
  waitFor,
  writeConfig,
} from './mainHarness.js';

const PAGES = ['file:///app/panel/index.html', 'app://main/index.html'];

/** Electron's app as far as attachToApp sees it: ready when told, quit emits before-quit/will-quit. */
class FakeApp extends EventEmitter implements ElectronAppLike {
  prevented: boolean[] = [];
  private ready!: () => void;
  private readonly readyP = new Promise<void>((r) => (this.ready = r));
  whenReady = () => this.readyP;
  becomeReady = () => this.ready();
  quit(): void {
    let prevented = false;
    const ev: PreventableEvent = { preventDefault: () => (prevented = true) };
    this.emit('before-quit', ev);
    this.prevented.push(prevented);
    if (!prevented) this.emit('will-quit', { preventDefault() {} });
  }
  exit(): void {}
}

function fakeIpcMain() {
  const handlers = new Map<string, (event: IpcInvokeEventLike, ...args: unknown[]) => unknown>();
  const ipc: IpcMainLike = {
    handle: (ch, fn) => void handlers.set(ch, fn),
    removeHandler: (ch) => void handlers.delete(ch),
  };
  const invoke = async (ch: string, url: string, ...args: unknown[]) =>
    handlers.get(ch)!({ senderFrame: { url, parent: null } }, ...args);
  return { ipc, handlers, invoke };
}

const pids = new Set<number>();
afterEach(async () => {
  for (const p of pids) if (!notRunning(p)) killQuietly(p);
  expect(await waitAllNotRunning([...pids], 3000)).toEqual([]);
  pids.clear();
  removeTempDirs();
});

function runtimeOn(dir: string, logger = memoryLogger().logger): McpRuntime {
  const configFile = join(dir, 'mcp.json');
  writeConfig(configFile, { mcpServers: { memory: memoryEntry(dir) } });
  return new McpRuntime({ configFile, cliPath: ensureCli(), watchConfig: false, logger });
}

describe('attachToApp', () => {
  it('serves the trusted pages at once, starts at ready, pushes status to live targets, and quit stops everything', async () => {
    const app = new FakeApp();
    const { ipc, handlers, invoke } = fakeIpcMain();
    const runtime = runtimeOn(tempDir());
    const sent: string[] = [];
    const live = { send: (ch: string) => void sent.push(ch), isDestroyed: () => false };
    const gone = { send: () => expect.fail('a destroyed webContents got a status'), isDestroyed: () => true };
    const other = {
      stopped: 0,
      killed: 0,
      stop: async () => void other.stopped++,
      killSync: () => void other.killed++,
    };
    const attached = attachToApp(app, ipc, runtime, {
      pageUrl: PAGES,
      statusTargets: () => [live, gone, undefined],
      alsoStop: [other],
      processLike: new EventEmitter(),
    });

    // Before ready: the handlers exist (a window may ask first), the runtime has not started.
    expect([...handlers.keys()].sort()).toEqual(
      [
        IPC_CHANNELS.restart,
        IPC_CHANNELS.getStatus,
        IPC_CHANNELS.signIn,
        IPC_CHANNELS.signOut,
        IPC_CHANNELS.pinDecision,
      ].sort(),
    );
    expect(((await invoke(IPC_CHANNELS.getStatus, PAGES[1]!)) as { bridge: { state: string } }).bridge.state).toBe(
      'stopped',
    );
    await expect(invoke(IPC_CHANNELS.getStatus, 'https://evil.example/')).rejects.toThrow(/sender not allowed/);
    // Sign-in goes to the runtime like restart (here a runtime whose bridge is not running).
    expect(await invoke(IPC_CHANNELS.signIn, PAGES[0]!, 'memory')).toEqual({
      ok: false,
      error: 'the MCP bridge is stopped',
    });

    app.becomeReady();
    await attached.started;
    const info = await runtime.whenReady();
    const st = runtime.status();
    for (const p of [st.bridge.pid!, ...st.servers.map((s) => s.pid!)]) pids.add(p);
    expect(info.servers.map((s) => s.state)).toEqual(['ready']);
    await waitFor(() => sent.length > 0, 5000, 'a status push');
    expect(new Set(sent)).toEqual(new Set([IPC_CHANNELS.status]));

    app.quit();
    await attached.quitSequence.stopped;
    expect(app.prevented).toEqual([true, false]);
    expect(runtime.status().bridge.state).toBe('stopped');
    expect(other.stopped).toBe(1);
    expect(other.killed).toBeGreaterThan(0); // the last resort at will-quit reaches it too
    expect([...pids].filter((p) => !notRunning(p))).toEqual([]);

    attached.detach();
    expect(handlers.size).toBe(0);
  });

  it('reports a failed start: `started` rejects and the logger has it', async () => {
    const app = new FakeApp();
    const { lines, logger } = memoryLogger();
    const runtime = runtimeOn(tempDir());
    await runtime.start(); // a second start() throws
    const attached = attachToApp(app, fakeIpcMain().ipc, runtime, {
      pageUrl: PAGES[0]!,
      logger,
      processLike: new EventEmitter(),
    });
    app.becomeReady();
    await expect(attached.started).rejects.toThrow(/called twice/);
    expect(lines.some((l) => l.startsWith('error MCP runtime failed to start: McpRuntime.start() called twice'))).toBe(
      true,
    );
    const st = runtime.status();
    if (st.bridge.pid) pids.add(st.bridge.pid);
    await runtime.stop();
  });
});
