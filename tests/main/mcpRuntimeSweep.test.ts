// McpRuntime.start() sweeps what proxies that died left behind: a registry
// file of a dead owner listing a live process group (a real process started here) makes the
// runtime SIGKILL that group, right at start, without waiting for the bridge.
import { afterEach, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import { cleanupRuntimes, ensureCli, notRunning, memoryLogger, tempDir, waitFor, writeConfig } from './mainHarness.js';
import { startTimeOf } from '../helpers/procTree.js';

const spawned: number[] = [];
const runtimes: McpRuntime[] = [];
const savedDir = process.env.QIMING_MCP_RUNTIME_DIR;

afterEach(async () => {
  const left = await cleanupRuntimes(runtimes, spawned);
  if (savedDir === undefined) delete process.env.QIMING_MCP_RUNTIME_DIR;
  else process.env.QIMING_MCP_RUNTIME_DIR = savedDir;
  expect(left).toEqual([]);
});

it.skipIf(process.platform !== 'linux')(
  'McpRuntime.start() kills the server groups a dead proxy left in its registry',
  async () => {
    const dir = tempDir();
    const run = join(dir, 'run');
    mkdirSync(run, { mode: 0o700 });
    process.env.QIMING_MCP_RUNTIME_DIR = run;
    const orphan = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore', detached: true });
    spawned.push(orphan.pid!);
    const dead = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    const deadStart = await waitFor(() => startTimeOf(dead.pid!), 2000, 'a start time');
    await new Promise((r) => dead.once('exit', r));
    const orphanStart = await waitFor(() => startTimeOf(orphan.pid!), 2000, 'a start time');
    writeFileSync(
      join(run, `${dead.pid}-${deadStart}.json`),
      JSON.stringify({
        owner: { pid: dead.pid, start: deadStart },
        groups: [{ pgid: orphan.pid, start: orphanStart }],
        pids: [],
      }),
    );
    const configFile = join(dir, 'mcp.json');
    writeConfig(configFile, { mcpServers: {} });
    const log = memoryLogger();
    const runtime = new McpRuntime({ configFile, cliPath: ensureCli(), logger: log.logger, watchConfig: false });
    runtimes.push(runtime);
    await runtime.start();
    await waitFor(() => notRunning(orphan.pid!), 5000, 'the orphan group to be killed');
    expect(
      log.lines.some((l) => /^warn ended 1 MCP server process group/.test(l)),
      log.lines.join('\n'),
    ).toBe(true);
  },
  20_000,
);
