// The management IPC on fakes of ipcMain/ipcRenderer with the real ManagementService on a real
// config file: only the panel's own top frame is served, every argument is checked before use,
// the preload API uses exactly the contract's channels, and changes land in the file (masked
// in every answer), refused with the typed conflict when made from an entry changed in the file
// since. Bridge-backed calls fail cleanly when the bridge is not running.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerManagementHandlers } from '../../src/main/app/managementIpc.js';
import type { IpcInvokeEventLike, IpcMainLike } from '../../src/main/app/ipcHandlers.js';
import { createPreloadApi } from '../../src/main/app/preloadApi.js';
import { ManagementService } from '../../src/main/config/managementService.js';
import { AgentSelectionStore, selectServers } from '../../src/main/config/agentSelection.js';
import { IPC_CHANNELS, MANAGEMENT_CHANNELS } from '../../src/shared/ipcContract.js';
import { CONFIG_CONFLICT } from '../../src/shared/configContract.js';

const PAGE = 'file:///app/renderer/index.html';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'mgmt-ipc-'));
  dirs.push(dir);
  const file = join(dir, 'mcp.json');
  writeFileSync(
    file,
    JSON.stringify({ mcpServers: { a: { command: 'node', env: { KEY: 'sk-secret-value-123456' } } } }),
  );
  const handlers = new Map<string, (e: IpcInvokeEventLike, ...args: unknown[]) => unknown>();
  const ipcMain: IpcMainLike = {
    handle: (ch, fn) => void handlers.set(ch, fn),
    removeHandler: (ch) => void handlers.delete(ch),
  };
  const agents = new AgentSelectionStore(join(dir, 'agents.json'));
  const service = new ManagementService({
    configFile: file,
    bridge: () => Promise.reject(new Error('not started')),
    agents,
  });
  const off = registerManagementHandlers(ipcMain, service, { pageUrl: PAGE });
  const trusted = { senderFrame: { url: `${PAGE}#x`, parent: null } };
  const invoke = (ch: string, ...args: unknown[]) => Promise.resolve(handlers.get(ch)!(trusted, ...args));
  return { file, handlers, off, invoke, agents };
}

describe('management IPC', () => {
  it('registers exactly the management channels and removes them', () => {
    const { handlers, off } = setup();
    expect([...handlers.keys()].sort()).toEqual([...MANAGEMENT_CHANNELS].sort());
    off();
    expect(handlers.size).toBe(0);
  });

  it('refuses other frames and pages', async () => {
    const { handlers } = setup();
    const get = handlers.get(IPC_CHANNELS.configGet)!;
    await expect(
      Promise.resolve().then(() => get({ senderFrame: { url: 'https://evil.example/', parent: null } })),
    ).rejects.toThrow('sender not allowed');
    await expect(Promise.resolve().then(() => get({ senderFrame: { url: PAGE, parent: {} } }))).rejects.toThrow(
      'sender not allowed',
    );
  });

  it('through the preload API: reads masked, writes the file, checks arguments', async () => {
    const { file, invoke } = setup();
    const seen: string[] = [];
    const api = createPreloadApi({
      invoke: (ch, ...args) => {
        seen.push(ch);
        return invoke(ch, ...args);
      },
      on: () => undefined,
      removeListener: () => undefined,
    });
    const view = await api.getConfig!();
    expect(JSON.stringify(view)).not.toContain('sk-secret');
    const r = await api.changeConfig!({ op: 'enable', id: 'a', enabled: false });
    expect(r.ok).toBe(true);
    expect(JSON.stringify(r)).not.toContain('sk-secret');
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.a).toEqual({
      command: 'node',
      env: { KEY: 'sk-secret-value-123456' },
      disabled: true,
    });
    expect(await api.changeConfig!({ op: 'nope' } as never)).toEqual({ ok: false, error: 'malformed change' });
    expect(await invoke(IPC_CHANNELS.configChange, 'text')).toEqual({ ok: false, error: 'malformed change' });
    expect(await invoke(IPC_CHANNELS.toolCall, '../x', 'echo', {})).toMatchObject({ ok: false });
    expect(await invoke(IPC_CHANNELS.toolCall, 'a', 'echo', [])).toEqual({
      ok: false,
      error: 'the arguments must be an object',
    });
    expect(await invoke(IPC_CHANNELS.agentsSet, 'gemini', ['bad id!'])).toMatchObject({ ok: false });
    // The bridge is not running: a clean answer, not a rejection.
    expect(await api.serverLog!('a')).toMatchObject({
      ok: false,
      error: expect.stringContaining('not running'),
      lines: [],
    });
    expect(seen).toEqual([
      IPC_CHANNELS.configGet,
      IPC_CHANNELS.configChange,
      IPC_CHANNELS.configChange,
      IPC_CHANNELS.serverLog,
    ]);
  });

  it('a change made from an entry changed in the file since is refused with the typed conflict, as over HTTP', async () => {
    const { file, invoke } = setup();
    const view = (await invoke(IPC_CHANNELS.configGet)) as {
      ok: true;
      config: { servers: { id: string; version: string }[] };
    };
    const version = view.config.servers[0]!.version;
    const edited = JSON.stringify({
      mcpServers: { a: { command: 'node', args: ['by-editor.js'], env: { KEY: 'sk-secret-value-123456' } } },
    });
    writeFileSync(file, edited);
    const r = await invoke(IPC_CHANNELS.configChange, { op: 'enable', id: 'a', enabled: false, version });
    expect(r).toEqual({ ok: false, code: CONFIG_CONFLICT, error: expect.stringContaining('"a" was changed in') });
    expect(readFileSync(file, 'utf8')).toBe(edited);
    expect(await invoke(IPC_CHANNELS.configChange, { op: 'enable', id: 'a', enabled: false, version: 1 })).toEqual({
      ok: false,
      error: 'malformed change',
    });
  });

  it('refuses a change nested deeper than the limit with a clear error, not a stack overflow', async () => {
    const { file, invoke } = setup();
    const before = readFileSync(file, 'utf8');
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const r = await invoke(IPC_CHANNELS.configChange, {
      op: 'add',
      id: 'd',
      entry: { kind: 'stdio', command: 'x', args: deep },
    });
    expect(r).toEqual({
      ok: false,
      error: 'the change nests arrays and objects more than 100 levels deep (the limit is 100)',
    });
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it("the log view also gets the agents' proxies' lines about a server (all there is for persistent: false)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgmt-log-'));
    dirs.push(dir);
    const file = join(dir, 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { solo: { command: 'node', persistent: false } } }));
    const proxyLogFile = join(dir, 'mcp-proxy.log');
    writeFileSync(
      proxyLogFile,
      [
        '[2026-12-01 10:00:00.000] [info] [solo] WARN solo: slow disk',
        '[2026-12-01 10:00:01.000] [info] [other] not about solo',
        '[2026-12-01 10:00:02.000] [error] [solo] exited unexpectedly with code 1',
        '',
      ].join('\n'),
    );
    const service = new ManagementService({
      configFile: file,
      bridge: () => Promise.reject(new Error('not started')),
      proxyLogFile,
    });
    const log = await service.serverLog('solo');
    expect(log.ok).toBe(true);
    expect(log.lines.map((l) => [l.level, l.text])).toEqual([
      ['warn', 'WARN solo: slow disk'],
      ['error', 'exited unexpectedly with code 1'],
    ]);
  });

  it('stores a per-agent selection and filters the session plan by it', async () => {
    const { invoke, agents } = setup();
    expect(await invoke(IPC_CHANNELS.agentsSet, 'gemini', ['a'])).toEqual({ ok: true });
    expect(((await invoke(IPC_CHANNELS.agentsGet)) as { selection: unknown }).selection).toEqual({ gemini: ['a'] });
    const plan = { bridgeIds: ['a', 'b'], sessionEntries: { c: {} } };
    expect(selectServers(plan, agents.serversFor('gemini'))).toEqual({ bridgeIds: ['a'], sessionEntries: {} });
    expect(selectServers(plan, agents.serversFor('codex-acp'))).toBe(plan);
    expect(await invoke(IPC_CHANNELS.agentsSet, 'gemini', null)).toEqual({ ok: true });
    expect(agents.serversFor('gemini')).toBeUndefined();
  });
});
