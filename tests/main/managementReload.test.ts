// The app's path end to end without Electron: a change made through the management IPC
// (ManagementService on the user's config file) is applied by the real McpRuntime's watcher
// and the bridge's incremental reload: only the touched server stops, starts or restarts,
// the bridge and the other servers keep their pids; Test and the log go through main to
// that same bridge.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import { ManagementService } from '../../src/main/config/managementService.js';
import {
  cleanupRuntimes,
  ensureCli,
  everythingEntry,
  memoryEntry,
  memoryLogger,
  tempDir,
  waitAllNotRunning,
  waitFor,
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

describe('panel changes in the app', () => {
  it('disable, enable and a tool switch through ManagementService restart only the touched server', async () => {
    const dir = tempDir();
    const configFile = join(dir, 'mcp.json');
    writeConfig(configFile, { mcpServers: { memory: memoryEntry(dir), everything: everythingEntry() } });
    const runtime = new McpRuntime({ configFile, cliPath: cli, logger: memoryLogger().logger, configDebounceMs: 100 });
    runtimes.push(runtime);
    runtime.on('status', (s) => {
      for (const p of [s.bridge.pid, ...s.servers.map((x) => x.pid)]) if (p) pids.add(p);
    });
    const service = new ManagementService({ configFile, bridge: () => runtime.whenReady() });
    await runtime.start();
    await runtime.whenReady();
    const server = (id: string) => runtime.status().servers.find((s) => s.id === id)!;
    await waitFor(
      () => server('memory').state === 'ready' && server('everything').state === 'ready',
      20_000,
      'both ready',
    );
    const bridge0 = runtime.status().bridge.pid;
    const memory0 = server('memory').pid!;
    const everything0 = server('everything').pid!;

    expect((await service.changeConfig({ op: 'enable', id: 'everything', enabled: false })).ok).toBe(true);
    await waitFor(() => server('everything').state === 'disabled', 20_000, 'everything disabled');
    expect(await waitAllNotRunning([everything0], 5000)).toEqual([]);
    expect(server('memory').pid).toBe(memory0);

    expect((await service.changeConfig({ op: 'enable', id: 'everything', enabled: true })).ok).toBe(true);
    await waitFor(() => server('everything').state === 'ready', 20_000, 'everything back');
    expect(server('everything').pid).not.toBe(everything0);
    expect(server('memory').pid).toBe(memory0);

    expect((await service.changeConfig({ op: 'tool', id: 'memory', tool: 'read_graph', enabled: false })).ok).toBe(
      true,
    );
    await waitFor(() => !server('memory').tools.some((t) => t.name === 'read_graph'), 20_000, 'read_graph hidden');
    expect(runtime.status().bridge.pid).toBe(bridge0);

    // Test and the log, asked of the running bridge by main.
    const call = await service.callTool('everything', 'echo', { message: 'through main' });
    expect(JSON.stringify(call)).toContain('through main');
    const log = await service.serverLog('everything');
    expect(log.ok).toBe(true);
  });
});
