// Config reload: chokidar sees the user's file change; when the bridge's servers changed the
// running bridge is told (POST /config/reload) and starts, stops or restarts only those
// servers (same bridge pid, the others keep theirs); other changes, and files it cannot use,
// leave everything running; a bad entry fails alone.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import { viewOf } from '../../src/main/config/userConfig.js';
import {
  cleanupRuntimes,
  ensureCli,
  everythingEntry,
  memoryEntry,
  memoryLogger,
  tempDir,
  waitFor,
  waitAllNotRunning,
  writeConfig,
} from './mainHarness.js';

let cli: string;
const runtimes: McpRuntime[] = [];
const pids = new Set<number>();

beforeAll(() => {
  cli = ensureCli();
});

afterEach(async () => {
  const left = await cleanupRuntimes(runtimes, pids);
  expect(left).toEqual([]);
});

function setup(initial: (dir: string) => unknown) {
  const dir = tempDir();
  const configFile = join(dir, 'mcp.json');
  const write = (c: unknown) => writeConfig(configFile, c);
  const text = initial(dir);
  if (typeof text === 'string') writeFileSync(configFile, text);
  else write(text);
  const log = memoryLogger();
  const runtime = new McpRuntime({ configFile, cliPath: cli, logger: log.logger, configDebounceMs: 100 });
  runtimes.push(runtime);
  runtime.on('status', (s) => {
    for (const p of [s.bridge.pid, ...s.servers.map((x) => x.pid)]) if (p) pids.add(p);
  });
  return { dir, configFile, write, runtime, log };
}

describe('McpRuntime config reload', () => {
  it('keeps the bridge for unrelated changes and adds a server inside the running bridge', async () => {
    const { dir, write, runtime, log } = setup((d) => ({ mcpServers: { memory: memoryEntry(d) } }));
    await runtime.start();
    const first = await runtime.whenReady();
    const st0 = runtime.status();
    const bridge0 = st0.bridge.pid!;
    const memory0 = st0.servers[0].pid!;

    // A per-session server and an app-level key: nothing the bridge runs.
    write({
      theme: 'dark',
      mcpServers: { memory: memoryEntry(dir), scratch: { command: 'node', args: ['x.js'], persistent: false } },
    });
    await waitFor(
      () => log.lines.some((l) => l.includes('the bridge keeps running')),
      5000,
      'the unrelated change to be seen',
    );
    expect(runtime.status().bridge.pid).toBe(bridge0);
    expect(runtime.status().bridge.restarts).toBe(0);
    expect(runtime.mcpServerPlan()).toEqual({
      bridgeIds: ['memory'],
      sessionEntries: { scratch: { command: 'node', args: ['x.js'], persistent: false } },
      exposure: { options: {}, servers: {} },
    });

    // An invalid file is reported (log and status) and changes nothing.
    writeFileSync(join(dir, 'mcp.json'), '{"mcpServers": {"memory": ');
    await waitFor(
      () => log.lines.some((l) => l.includes('MCP config not applied')),
      5000,
      'the invalid file to be reported',
    );
    expect(runtime.status().bridge.pid).toBe(bridge0);
    expect(runtime.status().bridge.configError).toMatch(/not valid JSON/);

    // A new bridge server: started inside the running bridge; memory keeps its process.
    write({ mcpServers: { memory: memoryEntry(dir), everything: everythingEntry() } });
    const after = await waitFor(
      () => {
        const s = runtime.status();
        return s.bridge.state === 'ready' && s.servers.some((x) => x.id === 'everything' && x.state === 'ready')
          ? s
          : undefined;
      },
      20_000,
      'the new server ready',
    );
    expect(log.lines.some((l) => l.includes('MCP config applied in the running bridge: added everything'))).toBe(true);
    const info = await runtime.whenReady();
    expect(info.port).toBe(first.port);
    expect(after.bridge.pid).toBe(bridge0);
    expect(after.bridge.restarts).toBe(0);
    expect(after.bridge.configError).toBeUndefined();
    expect(after.servers.map((s) => [s.id, s.state])).toEqual([
      ['memory', 'ready'],
      ['everything', 'ready'],
    ]);
    expect(after.servers[0].pid).toBe(memory0);
    expect(runtime.mcpServerPlan().bridgeIds).toEqual(['memory', 'everything']);

    // Removed again: its process is gone, the bridge and memory stay.
    const everything = after.servers[1].pid!;
    write({ mcpServers: { memory: memoryEntry(dir) } });
    await waitFor(() => runtime.status().servers.length === 1, 20_000, 'the server removed');
    expect(await waitAllNotRunning([everything], 5000)).toEqual([]);
    expect(runtime.status().bridge.pid).toBe(bridge0);
    expect(runtime.status().servers[0].pid).toBe(memory0);
  });

  it('serialises concurrent reloads: the same change restarts the edited server once, inside the same bridge', async () => {
    const { dir, write, runtime } = setup((d) => ({ mcpServers: { memory: memoryEntry(d) } }));
    // Counts every reload, the watcher's included (it calls this.reload()), and keeps the last.
    let reloads = 0;
    let lastReload: Promise<void> = Promise.resolve();
    const realReload = runtime.reload.bind(runtime);
    runtime.reload = () => (reloads++, (lastReload = realReload()));
    await runtime.start();
    await runtime.whenReady();
    expect(reloads).toBe(1); // start's own
    const bridge0 = runtime.status().bridge.pid!;
    const memory0 = runtime.status().servers[0].pid!;
    const memoryPids = new Set<number>([memory0]);
    runtime.on('status', (s) => {
      const p = s.servers.find((x) => x.id === 'memory')?.pid;
      if (p) memoryPids.add(p);
    });
    write({ mcpServers: { memory: { ...memoryEntry(dir), timeoutMs: 30_000 } } });
    // Three explicit reloads racing with the watcher's own.
    await Promise.all([runtime.reload(), runtime.reload(), runtime.reload()]);
    // A pid, and not the old one (while the old process stops, its status may show no pid).
    const restarted = () => {
      const m = runtime.status().servers[0];
      return m.state === 'ready' && m.pid !== undefined && m.pid !== null && m.pid !== memory0;
    };
    await waitFor(restarted, 20_000, 'memory restarted');
    const st = runtime.status();
    // The status events may be coalesced: the pid seen by polling counts as well.
    memoryPids.add(st.servers[0].pid!);
    expect(st.bridge.pid).toBe(bridge0);
    expect(st.bridge.restarts).toBe(0);
    expect(memoryPids.size).toBe(2);
    // The watcher's reload of the same change has run too, and restarted nothing more.
    await waitFor(
      () => reloads >= 5,
      10_000,
      () => `the watcher's reload (reloads: ${reloads})`,
    );
    await lastReload;
    await runtime.reload();
    expect(runtime.status().bridge.pid).toBe(bridge0);
    memoryPids.add(runtime.status().servers[0].pid!);
    expect(memoryPids.size).toBe(2);
    expect(await waitAllNotRunning([memory0], 3000)).toEqual([]);
  });

  it('reports a file it cannot use at start and starts the bridge once it is fixed; a bad entry then fails alone', async () => {
    const { dir, write, runtime } = setup(() => '{"mcpServers": {"memory": ');
    await runtime.start();
    await expect(runtime.whenReady()).rejects.toThrow(/not valid JSON/);
    expect(runtime.status().bridge.state).toBe('crashed');
    expect(runtime.status().bridge.lastError).toMatch(/not valid JSON/);
    write({ mcpServers: { memory: memoryEntry(dir), typo: { command: 42 } } });
    const info = await waitFor(async () => runtime.whenReady().catch(() => undefined), 20_000, 'ready after the fix');
    expect(info.servers.map((s) => [s.id, s.state])).toEqual([
      ['memory', 'ready'],
      ['typo', 'failed'],
    ]);
    await waitFor(() => runtime.status().servers.some((s) => s.id === 'typo'), 5000, 'the bad entry in the status');
    expect(runtime.status().servers.find((s) => s.id === 'typo')).toMatchObject({
      state: 'failed',
      lastError: 'invalid config entry: command must be a string',
    });
  });

  it('computes the bridge signature from bridge servers and serving options only', () => {
    const base = { mcpServers: { a: { command: 'x', args: ['1'] }, b: { url: 'http://h/', persistent: false } } };
    const same = viewOf({
      theme: 1,
      mcpServers: { b: { url: 'http://other/', persistent: false }, a: { args: ['1'], command: 'x' } },
    });
    expect(same.bridgeSignature).toBe(viewOf(base).bridgeSignature);
    expect(viewOf({ ...base, toolNaming: 'original' }).bridgeSignature).not.toBe(viewOf(base).bridgeSignature);
    expect(viewOf({ ...base, maxResultBytes: 'off' }).bridgeSignature).not.toBe(viewOf(base).bridgeSignature);
    expect(viewOf({ mcpServers: { a: { command: 'x', args: ['2'] } } }).bridgeSignature).not.toBe(
      viewOf(base).bridgeSignature,
    );
    expect(viewOf(base).sessionEntries).toEqual({ b: { url: 'http://h/', persistent: false } });
    // The trust options the bridge enforces count too: a hand edit of them reaches it.
    for (const trust of [
      { approval: 'deny' },
      { approvalHints: 'spec' },
      { approvalTimeoutMs: 5000 },
      { pinning: 'off' },
      { apps: false },
    ])
      expect(viewOf({ ...base, ...trust }).bridgeSignature, JSON.stringify(trust)).not.toBe(
        viewOf(base).bridgeSignature,
      );
  });

  it('hands a hand-edited approval policy to the running bridge', async () => {
    const { dir, write, runtime, log } = setup((d) => ({ mcpServers: { memory: memoryEntry(d) } }));
    await runtime.start();
    await runtime.whenReady();
    const bridge0 = runtime.status().bridge.pid;
    write({ approval: { '*delete*': 'deny' }, mcpServers: { memory: memoryEntry(dir) } });
    await waitFor(
      () => log.lines.some((l) => l.includes('MCP config applied in the running bridge: options approval')),
      10_000,
      'the bridge to take the approval policy',
    );
    expect(runtime.status().bridge.pid).toBe(bridge0);
  });
});
