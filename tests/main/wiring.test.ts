// The Electron wiring's logic through fakes of the narrow interfaces that Electron's app,
// powerMonitor, ipcMain and ipcRenderer implement: the quit sequence (also with a real
// runtime and bridge), IPC channel/sender validation, and the preload API.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { installQuitSequence, type PreventableEvent } from '../../src/main/app/quitSequence.js';
import {
  handleTrusted,
  isTrustedSender,
  registerIpcHandlers,
  type IpcInvokeEventLike,
  type IpcMainLike,
} from '../../src/main/app/ipcHandlers.js';
import { createPreloadApi, type IpcRendererLike } from '../../src/main/app/preloadApi.js';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import { IPC_CHANNELS } from '../../src/shared/ipcContract.js';
import type { RuntimeStatus } from '../../src/shared/status.js';
import {
  ensureCli,
  notRunning,
  killQuietly,
  memoryEntry,
  removeTempDirs,
  tempDir,
  waitFor,
  waitAllNotRunning,
  writeConfig,
} from './mainHarness.js';

class FakeApp extends EventEmitter {
  quits = 0;
  exits: (number | undefined)[] = [];
  prevented = 0;
  /** Emits before-quit like Electron: quits (emitting will-quit) unless a listener prevented it. */
  quit(): void {
    this.quits++;
    const ev = this.event();
    this.emit('before-quit', ev);
    if (!ev.defaultPrevented) this.emit('will-quit', this.event());
  }
  exit(code?: number): void {
    this.exits.push(code);
  }
  event(): PreventableEvent & { defaultPrevented: boolean } {
    const ev = {
      defaultPrevented: false,
      preventDefault: () => {
        ev.defaultPrevented = true;
        this.prevented++;
      },
    };
    return ev;
  }
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

afterEach(() => removeTempDirs());

/**
 * How long the quit sequence is watched for a quit it must not make yet: one that does not
 * wait for the stop (held by the test) comes at once, within a few event-loop turns.
 */
const NOT_QUIT_WINDOW_MS = 50;

describe('quit sequence', () => {
  it('holds the first quit once, awaits the stop with its deadline, then quits; kills at will-quit and exit', async () => {
    const app = new FakeApp();
    const proc = new EventEmitter();
    const gate = deferred();
    const stop = vi.fn((_deadline: number) => gate.promise);
    const killSync = vi.fn();
    const seq = installQuitSequence({
      app,
      processLike: proc,
      stop,
      killSync,
      deadlineMs: 1234,
      exitFallbackMs: 60_000,
    });

    app.quit();
    expect(app.prevented).toBe(1);
    expect(stop).toHaveBeenCalledTimes(1);
    expect(stop).toHaveBeenCalledWith(1234);
    expect(app.listenerCount('will-quit')).toBe(1);
    await new Promise((r) => setTimeout(r, NOT_QUIT_WINDOW_MS));
    expect(app.quits).toBe(1); // still waiting for the stop

    // A second quit while stopping is not held (the user insists) and does not stop twice.
    const ev = app.event();
    app.emit('before-quit', ev);
    expect(ev.defaultPrevented).toBe(false);
    expect(stop).toHaveBeenCalledTimes(1);

    gate.resolve();
    await seq.stopped;
    expect(app.quits).toBe(2); // our own app.quit() after the stop, which went through
    expect(app.prevented).toBe(1);
    expect(killSync).toHaveBeenCalled(); // will-quit's last resort
    const before = killSync.mock.calls.length;
    proc.emit('exit');
    expect(killSync.mock.calls.length).toBe(before + 1);
    seq.sessionEnding();
    expect(killSync.mock.calls.length).toBe(before + 2);
  });

  it('quits even when the stop never finishes, and exits when quitting does not', async () => {
    const app = new FakeApp();
    app.quit = function () {
      this.quits++;
      const ev = this.event();
      this.emit('before-quit', ev); // and a window refuses to close: never will-quit
    };
    const seq = installQuitSequence({
      app,
      processLike: new EventEmitter(),
      stop: () => new Promise(() => {}),
      killSync: () => {},
      deadlineMs: 10,
      exitFallbackMs: 20,
    });
    app.quit();
    await seq.stopped; // bounded by deadline + slack
    expect(app.quits).toBe(2);
    await waitFor(() => app.exits.length > 0, 2000, 'app.exit fallback');
    expect(app.exits).toEqual([0]);
  });

  it('holds a system shutdown and runs the sequence with the shorter deadline', async () => {
    const app = new FakeApp();
    const pm = new EventEmitter();
    const stop = vi.fn(async () => {});
    const seq = installQuitSequence({
      app,
      powerMonitor: pm,
      processLike: new EventEmitter(),
      stop,
      killSync: () => {},
      deadlineMs: 5000,
      shutdownDeadlineMs: 700,
    });
    const ev = app.event();
    pm.emit('shutdown', ev);
    expect(ev.defaultPrevented).toBe(true);
    expect(stop).toHaveBeenCalledWith(700);
    await seq.stopped;
    expect(app.quits).toBe(2);
  });

  it('stops a real runtime at quit: nothing it started survives', async () => {
    const dir = tempDir();
    const configFile = join(dir, 'mcp.json');
    writeConfig(configFile, { mcpServers: { memory: memoryEntry(dir) } });
    const runtime = new McpRuntime({ configFile, cliPath: ensureCli(), watchConfig: false });
    await runtime.start();
    await runtime.whenReady();
    const st = runtime.status();
    const pids = [st.bridge.pid!, ...st.servers.map((s) => s.pid!)];
    const app = new FakeApp();
    const seq = installQuitSequence({
      app,
      processLike: new EventEmitter(),
      stop: (deadlineMs) => runtime.stop({ deadlineMs }),
      killSync: () => runtime.killSync(),
      deadlineMs: 3000,
    });
    try {
      app.quit();
      await seq.stopped;
      expect(app.quits).toBe(2);
      expect(pids.filter((p) => !notRunning(p))).toEqual([]);
      expect(runtime.status().bridge.state).toBe('stopped');
    } finally {
      await runtime.stop();
      for (const p of pids) if (!notRunning(p)) killQuietly(p);
      expect(await waitAllNotRunning(pids, 2000)).toEqual([]);
    }
  });
});

const PAGE = 'file:///opt/app/resources/app.asar/dist/renderer/index.html';
const status: RuntimeStatus = { bridge: { state: 'ready', port: 1 }, servers: [] };

function fakeIpcMain() {
  const handlers = new Map<string, (event: IpcInvokeEventLike, ...args: unknown[]) => unknown>();
  const ipc: IpcMainLike = {
    handle: (ch, fn) => void handlers.set(ch, fn),
    removeHandler: (ch) => void handlers.delete(ch),
  };
  const invoke = async (ch: string, frame: IpcInvokeEventLike['senderFrame'], ...args: unknown[]) => {
    const h = handlers.get(ch);
    if (!h) throw new Error(`No handler registered for '${ch}'`);
    return h({ senderFrame: frame }, ...args);
  };
  return { ipc, handlers, invoke };
}

describe('IPC handlers', () => {
  const api = {
    getStatus: () => status,
    restart: vi.fn(async (id: string) => ({ ok: id === 'memory' })),
    signIn: vi.fn(async (id: string) => ({ ok: true, url: `https://as.example/authorize?for=${id}` })),
    signOut: vi.fn(async () => ({ ok: true })),
    decidePin: vi.fn(async () => ({ ok: true })),
  };

  it('serves the app page and refuses foreign, missing and sub frames', async () => {
    const { ipc, handlers, invoke } = fakeIpcMain();
    const unregister = registerIpcHandlers(ipc, api, { pageUrl: PAGE });
    expect([...handlers.keys()].sort()).toEqual(
      [
        IPC_CHANNELS.getStatus,
        IPC_CHANNELS.restart,
        IPC_CHANNELS.signIn,
        IPC_CHANNELS.signOut,
        IPC_CHANNELS.pinDecision,
      ].sort(),
    );
    const top = { url: `${PAGE}#token=x`, parent: null };
    expect(await invoke(IPC_CHANNELS.getStatus, top)).toEqual(status);
    expect(await invoke(IPC_CHANNELS.restart, top, 'memory')).toEqual({ ok: true });

    await expect(
      invoke(IPC_CHANNELS.getStatus, { url: 'https://evil.example/index.html', parent: null }),
    ).rejects.toThrow(/sender not allowed/);
    await expect(invoke(IPC_CHANNELS.getStatus, { url: 'file:///tmp/other/index.html', parent: null })).rejects.toThrow(
      /sender not allowed/,
    );
    await expect(invoke(IPC_CHANNELS.getStatus, null)).rejects.toThrow(/sender not allowed/);
    await expect(invoke(IPC_CHANNELS.getStatus, { url: PAGE, parent: {} })).rejects.toThrow(/sender not allowed/);
    await expect(
      invoke(IPC_CHANNELS.restart, { url: 'https://evil.example/', parent: null }, 'memory'),
    ).rejects.toThrow(/sender not allowed/);
    expect(api.restart).toHaveBeenCalledTimes(1); // the refused call never reached the runtime

    // Arguments are checked before use.
    expect(await invoke(IPC_CHANNELS.restart, top, '../etc')).toEqual({ ok: false, error: 'invalid server id' });

    // Sign-in and sign-out: same sender and id checks.
    expect(await invoke(IPC_CHANNELS.signIn, top, 'linear')).toEqual({
      ok: true,
      url: 'https://as.example/authorize?for=linear',
    });
    expect(await invoke(IPC_CHANNELS.signOut, top, 'linear')).toEqual({ ok: true });
    await expect(invoke(IPC_CHANNELS.signIn, { url: 'https://evil.example/', parent: null }, 'linear')).rejects.toThrow(
      /sender not allowed/,
    );
    expect(await invoke(IPC_CHANNELS.signOut, top, 'a/b')).toEqual({ ok: false, error: 'invalid server id' });
    expect(api.signIn).toHaveBeenCalledTimes(1);
    expect(api.signOut).toHaveBeenCalledTimes(1);

    // A pin decision: the same sender check, and every argument checked before use.
    const hash = 'a'.repeat(64);
    expect(await invoke(IPC_CHANNELS.pinDecision, top, 'd', 'echo', 'accept', hash)).toEqual({ ok: true });
    expect(api.decidePin).toHaveBeenCalledWith('d', 'echo', 'accept', hash);
    await expect(
      invoke(IPC_CHANNELS.pinDecision, { url: 'https://evil.example/', parent: null }, 'd', 'echo', 'accept', hash),
    ).rejects.toThrow(/sender not allowed/);
    expect(await invoke(IPC_CHANNELS.pinDecision, top, 'a/b', 'echo', 'accept', hash)).toEqual({
      ok: false,
      error: 'invalid server id',
    });
    expect(await invoke(IPC_CHANNELS.pinDecision, top, 'd', 'echo', 'maybe', hash)).toEqual({
      ok: false,
      error: 'the decision must be accept or reject',
    });
    expect(await invoke(IPC_CHANNELS.pinDecision, top, 'd', 'echo', 'reject', 'x')).toEqual({
      ok: false,
      error: 'invalid hash',
    });
    expect(api.decidePin).toHaveBeenCalledTimes(1);

    unregister();
    expect(handlers.size).toBe(0);
  });

  it('refuses to register a channel without the mcp: prefix', () => {
    const { ipc, handlers } = fakeIpcMain();
    expect(() => handleTrusted(ipc, 'status:get', PAGE, () => 1)).toThrow(/must start with "mcp:"/);
    expect(handlers.size).toBe(0);
  });

  it('compares page URLs without query and hash', () => {
    expect(isTrustedSender({ url: `${PAGE}?a=1#b` }, PAGE)).toBe(true);
    expect(isTrustedSender({ url: `${PAGE}.evil` }, PAGE)).toBe(false);
    expect(isTrustedSender({ url: 'not a url' }, PAGE)).toBe(false);
  });
});

describe('preload API', () => {
  it('uses only prefixed channels and never hands the IPC event to the page', async () => {
    const ipc = new EventEmitter();
    const invoked: unknown[][] = [];
    const fake: IpcRendererLike = {
      invoke: async (...a) => (invoked.push(a), a[0] === IPC_CHANNELS.getStatus ? status : []),
      on: (ch, l) => ipc.on(ch, l),
      removeListener: (ch, l) => ipc.removeListener(ch, l),
    };
    const api = createPreloadApi(fake);
    expect(await api.getStatus()).toEqual(status);
    await api.restart('memory');
    await api.signIn('linear');
    await api.signOut('linear');
    await api.decidePin!('d', 'echo', 'accept', 'a'.repeat(64));
    expect(invoked.map((a) => a[0])).toEqual([
      IPC_CHANNELS.getStatus,
      IPC_CHANNELS.restart,
      IPC_CHANNELS.signIn,
      IPC_CHANNELS.signOut,
      IPC_CHANNELS.pinDecision,
    ]);
    expect(invoked[4].slice(1)).toEqual(['d', 'echo', 'accept', 'a'.repeat(64)]);
    expect(invoked.slice(2, 4).map((a) => a[1])).toEqual(['linear', 'linear']);
    expect(invoked.every((a) => String(a[0]).startsWith('mcp:'))).toBe(true);

    const got: unknown[][] = [];
    const off = api.onStatus((...args: unknown[]) => got.push(args));
    const secretEvent = { sender: { send: () => {} } };
    ipc.emit(IPC_CHANNELS.status, secretEvent, status);
    expect(got).toEqual([[status]]);
    off();
    ipc.emit(IPC_CHANNELS.status, secretEvent, status);
    expect(got).toHaveLength(1);
    expect(ipc.listenerCount(IPC_CHANNELS.status)).toBe(0);
  });
});
