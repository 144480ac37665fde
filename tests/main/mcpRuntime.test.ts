// McpRuntime with the real bridge (the built CLI) and real MCP servers from node_modules:
// start, ready, status and progress events, restart(id), crash recovery, and stop leaving
// no process behind.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpRuntime, type StartupProgress } from '../../src/main/runtime/mcpRuntime.js';
import type { RuntimeStatus } from '../../src/shared/status.js';
import { descendantsOf } from '../helpers/procTree.js';
import { noProcess } from '../helpers/processGone.js';
import {
  cleanupRuntimes,
  ensureCli,
  everythingEntry,
  FIXTURES,
  notRunning,
  memoryEntry,
  memoryLogger,
  stubbornEntry,
  tempDir,
  waitFor,
  waitAllNotRunning,
  writeConfig,
} from './mainHarness.js';

let cli: string;
const runtimes: McpRuntime[] = [];
const spawned: number[] = [];

beforeAll(() => {
  cli = ensureCli();
});

afterEach(async () => {
  const left = await cleanupRuntimes(runtimes, spawned);
  expect(left).toEqual([]);
});

function track(status: RuntimeStatus): void {
  for (const pid of [status.bridge.pid, ...status.servers.map((s) => s.pid)])
    if (pid && !spawned.includes(pid)) spawned.push(pid);
}

function makeRuntime(config: unknown, extra: Partial<ConstructorParameters<typeof McpRuntime>[0]> = {}) {
  const dir = tempDir();
  const configFile = join(dir, 'mcp.json');
  writeConfig(configFile, typeof config === 'function' ? config(dir) : config);
  const log = memoryLogger();
  const runtime = new McpRuntime({ configFile, cliPath: cli, logger: log.logger, watchConfig: false, ...extra });
  runtimes.push(runtime);
  const statuses: RuntimeStatus[] = [];
  const progress: StartupProgress[] = [];
  runtime.on('status', (s) => {
    statuses.push(s);
    track(s);
  });
  runtime.on('progress', (p) => progress.push(p));
  return { dir, configFile, runtime, statuses, progress, log };
}

describe('McpRuntime', () => {
  it('starts the bridge, reports progress and status, restarts one server, and stops leaving no process', async () => {
    const { runtime, statuses, progress } = makeRuntime((dir: string) => ({
      mcpServers: { memory: memoryEntry(dir), everything: everythingEntry() },
    }));
    await runtime.start();
    const info = await runtime.whenReady();
    expect(info.port).toBeGreaterThan(0);
    expect(info.url).toBe(`http://127.0.0.1:${info.port}`);
    expect(info.token.length).toBeGreaterThanOrEqual(16);
    expect(info.servers.map((s) => [s.id, s.state])).toEqual([
      ['memory', 'ready'],
      ['everything', 'ready'],
    ]);

    const st = runtime.status();
    track(st);
    expect(st.bridge.state).toBe('ready');
    expect(st.bridge.port).toBe(info.port);
    expect(st.servers.map((s) => s.id).sort()).toEqual(['everything', 'memory']);
    for (const s of st.servers) {
      expect(s.state).toBe('ready');
      expect(s.pid).toBeGreaterThan(0);
      expect(s.tools.length).toBeGreaterThan(0);
      expect(s.toolTokens).toBeGreaterThan(0);
    }
    // The bridge's tool economy reaches the app's status too.
    expect(st.economy).toMatchObject({ exposure: 'auto', inForce: 'all', budgetTokens: 20_000, sessions: [] });
    // Status events went through 'starting' to 'ready'; progress ended with everything settled.
    expect(statuses.map((s) => s.bridge.state)).toContain('starting');
    expect(statuses.at(-1)?.bridge.state).toBe('ready');
    expect(progress.at(-1)).toEqual({ settled: 2, total: 2 });
    expect(progress.every((p) => p.total === 2 || p.total === 0)).toBe(true);
    // The token really guards the bridge.
    expect((await fetch(`${info.url}/status`)).status).toBe(401);
    expect((await fetch(`${info.url}/status`, { headers: { Authorization: `Bearer ${info.token}` } })).status).toBe(
      200,
    );

    // whenReady() once ready resolves at once with the same info.
    expect(await runtime.whenReady()).toEqual(info);

    // restart(id) goes through the bridge; the server gets a new process.
    const oldMemoryPid = st.servers.find((s) => s.id === 'memory')!.pid!;
    expect(await runtime.restart('memory')).toEqual({ ok: true });
    const restarted = await waitFor(
      () => {
        const m = runtime.status().servers.find((s) => s.id === 'memory');
        return m && m.state === 'ready' && m.restarts >= 1 && typeof m.pid === 'number' && m.pid !== oldMemoryPid
          ? m
          : undefined;
      },
      15_000,
      'memory restarted',
    );
    expect(restarted.pid).toBeGreaterThan(0);
    expect(await waitAllNotRunning([oldMemoryPid], 5000)).toEqual([]);
    expect((await runtime.restart('nope')).ok).toBe(false);

    const pids = [runtime.status().bridge.pid!, ...runtime.status().servers.map((s) => s.pid!)];
    await runtime.stop({ deadlineMs: 3000 });
    for (const pid of pids) expect(notRunning(pid), `pid ${pid}`).toBe(true);
    expect(runtime.status().bridge.state).toBe('stopped');
    expect(runtime.status().servers.every((s) => s.state === 'stopped' && s.pid === undefined)).toBe(true);
    await runtime.stop(); // idempotent
    await expect(runtime.whenReady()).rejects.toThrow(/stopped/);
  });

  it('stop({deadlineMs}) resolves only once the bridge, a server ignoring SIGTERM and stdin EOF, and the group watcher are gone', async () => {
    const { runtime } = makeRuntime((dir: string) => ({
      mcpServers: {
        stubborn: {
          command: process.execPath,
          args: [join(FIXTURES, 'ignoresTermServer.mjs'), join(dir, 'stubborn.pids')],
        },
      },
    }));
    await runtime.start();
    await runtime.whenReady();
    const st = runtime.status();
    track(st);
    const bridge = st.bridge.pid!;
    const server = st.servers[0]!.pid!;
    // Everything the bridge started: the server and the /bin/sh group watcher (its own session).
    const tree = descendantsOf(bridge);
    spawned.push(...tree.filter((p) => !spawned.includes(p)));
    const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const watcher = tree.find((p) => cmdline(p)[0] === '/bin/sh');
    expect(tree).toContain(server);
    expect(watcher, `a group watcher among ${tree.join(', ')}`).toBeDefined();

    // Longer than the bridge's own 2 s bound for a stop it starts by itself: the bridge gets its
    // share of this one and stops the server (SIGKILL shortly before its bound) and the watcher.
    await runtime.stop({ deadlineMs: 8000 });
    // Gone, not merely dead: each was reaped by its parent, none left to init.
    const name = (pid: number) =>
      `${pid === bridge ? 'bridge' : pid === server ? 'server' : pid === watcher ? 'watcher' : 'descendant'} ${pid}`;
    expect([bridge, ...tree].filter((p) => !noProcess(p)).map(name)).toEqual([]);
  });

  it('restarts a crashed bridge on the same port after killing the servers it had started', async () => {
    let pidFile = '';
    const { runtime, statuses } = makeRuntime(
      (dir: string) => {
        pidFile = join(dir, 'stubborn.pids');
        return { mcpServers: { memory: memoryEntry(dir), stubborn: stubbornEntry(pidFile) } };
      },
      { backoff: { initialMs: 200 } },
    );
    await runtime.start();
    const first = await runtime.whenReady();
    const before = runtime.status();
    track(before);
    expect(before.servers.map((s) => s.state)).toEqual(['ready', 'ready']);
    // The stubborn server's node process is a grandchild behind `sh`, in the sh's group.
    const stubbornNode = Number(readFileSync(pidFile, 'utf8').trim().split('\n')[0]);
    spawned.push(stubbornNode);
    const oldPids = [...before.servers.map((s) => s.pid!), stubbornNode];
    const oldBridge = before.bridge.pid!;

    statuses.length = 0;
    process.kill(oldBridge, 'SIGKILL');
    await waitFor(() => statuses.some((s) => s.bridge.state === 'crashed'), 5000, 'crashed state');
    // Nothing the crashed bridge started survives it, not even the server ignoring SIGTERM and EOF.
    expect(await waitAllNotRunning([oldBridge, ...oldPids], 5000)).toEqual([]);

    const info = await waitFor(
      async () => {
        const s = runtime.status();
        return s.bridge.state === 'ready' && s.bridge.pid !== oldBridge ? runtime.whenReady() : undefined;
      },
      20_000,
      'a new bridge',
    );
    expect(info.port).toBe(first.port);
    expect(info.token).toBe(first.token);
    const after = runtime.status();
    track(after);
    expect(after.bridge.restarts).toBe(1);
    expect(after.servers.map((s) => s.state)).toEqual(['ready', 'ready']);
    const crashed = statuses.find((s) => s.bridge.state === 'crashed')!;
    expect(crashed.bridge.lastError).toMatch(/SIGKILL/);
    expect(crashed.servers.every((s) => s.state === 'restarting' && s.pid === undefined)).toBe(true);
    const order = statuses.map((s) => s.bridge.state).filter((s, i, a) => s !== a[i - 1]);
    // (A status event already under way when the bridge died may still say 'ready' first.)
    const from = order.indexOf('crashed');
    expect(order.slice(from, from + 3)).toEqual(['crashed', 'starting', 'ready']);
    for (const pid of after.servers.map((s) => s.pid!)) expect(oldPids).not.toContain(pid);
  });

  it('stops cleanly after the bridge was SIGKILLed, while the restart is still pending', async () => {
    const { runtime, statuses } = makeRuntime((dir: string) => ({ mcpServers: { memory: memoryEntry(dir) } }), {
      backoff: { initialMs: 60_000 },
    });
    await runtime.start();
    await runtime.whenReady();
    const st = runtime.status();
    track(st);
    const pids = [st.bridge.pid!, ...st.servers.map((s) => s.pid!)];
    process.kill(st.bridge.pid!, 'SIGKILL');
    await waitFor(() => runtime.status().bridge.state === 'crashed', 5000, 'crashed state');
    await runtime.stop({ deadlineMs: 2000 });
    expect(await waitAllNotRunning(pids, 1000)).toEqual([]);
    expect(runtime.status().bridge).toMatchObject({ state: 'stopped' });
    // No new bridge was started by the pending restart.
    const order = statuses.map((s) => s.bridge.state).filter((s, i, a) => s !== a[i - 1]);
    expect(order).toEqual(['starting', 'ready', 'crashed', 'stopped']);
  });
});
