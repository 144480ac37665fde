// Nothing a proxy started may outlive it, however it dies. For each kill
// scenario (SIGKILL of the stdio proxy, of the agent that spawned it, of the bridge, of the
// app that spawned the bridge), a chain with a server that ignores stdin EOF and SIGTERM
// behind `sh`, and a server that puts a child in its own session and process group, is
// started; every pid under the target is collected from /proc, the target is SIGKILLed, and
// every one of those pids must stop running within 5 s (the staged stop of a server that
// ignores EOF and SIGTERM: 2 s stdin grace, 2 s SIGTERM grace, then SIGKILL; the watcher's
// SIGTERM, 1 s, SIGKILL for the escaped child), a deadline stretched on a loaded machine
// (loadScale.ts). Plus the sweep at the next start.
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning } from '../../../src/proxy/process/processTree.js';
import { CLI, FIXTURES } from '../../helpers/paths.js';
import { DEFAULT_STDIN_GRACE_MS, DEFAULT_TERM_GRACE_MS } from '../../../src/proxy/process/stopServerTree.js';
import { waitFor } from '../../helpers/waitFor.js';
import { loadFactor, scaled } from '../../helpers/loadScale.js';
import { descendantsOf, startTimeOf } from '../../helpers/procTree.js';

const linux = process.platform === 'linux';
/** The product's bound: the stdin and SIGTERM graces of the staged stop, plus a second. */
const KILL_DEADLINE_MS = DEFAULT_STDIN_GRACE_MS + DEFAULT_TERM_GRACE_MS + 1000;

const started: ChildProcess[] = [];
const pids = new Set<number>();
const dirs: string[] = [];
const fds: number[] = [];

function kill(target: number): void {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // gone
  }
}

afterEach(async () => {
  for (const c of started.splice(0)) if (c.pid) pids.add(c.pid);
  for (const p of pids) {
    kill(-p);
    kill(p);
  }
  await waitFor(() => [...pids].every((p) => !isRunning(p)), scaled(5000), 'cleanup').catch(() => undefined);
  pids.clear();
  for (const fd of fds.splice(0)) closeSync(fd);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'qiming-orphans-'));
  dirs.push(d);
  return d;
}

/** Env for everything a test starts: a private registry folder, no shared log file. */
function envFor(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    QIMING_MCP_RUNTIME_DIR: join(dir, 'run'),
    MCP_BRIDGE_TOKEN: 'orphans-test-token',
  };
  delete env.MCP_PROXY_LOG_FILE;
  delete env.MCP_PROXY_LOG_LEVEL;
  return env;
}

function recorded(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { pid: number }).pid);
}

/** Pids the escaping server recorded for its escaped child. */
function escapedPids(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { role: string; pid: number })
    .filter((r) => r.role === 'escaped')
    .map((r) => r.pid);
}

/**
 * True once the proxy's registry file lists every escaped pid: the proxy looks for descendants
 * outside its servers' groups within about a second of their birth, and writes the file right
 * after telling its watcher, which is what ends them after a SIGKILL.
 */
function escapedListed(dir: string): boolean {
  const want = escapedPids(join(dir, 'escaping.pids'));
  const run = join(dir, 'run');
  if (want.length === 0 || !existsSync(run)) return false;
  const listed = new Set<number>();
  for (const f of readdirSync(run).filter((n) => n.endsWith('.json'))) {
    try {
      const body = JSON.parse(readFileSync(join(run, f), 'utf8')) as { pids?: { pid: number }[] };
      for (const p of body.pids ?? []) listed.add(p.pid);
    } catch {
      // being replaced: read again on the next poll
    }
  }
  return want.every((p) => listed.has(p));
}

function servers(dir: string): { config: unknown; ready: () => number[] | undefined } {
  const stubborn = join(dir, 'stubborn.pids');
  const escaping = join(dir, 'escaping.pids');
  return {
    config: {
      mcpServers: {
        // Behind `sh -c`, which ignores SIGTERM too; the node server under it ignores SIGTERM and EOF.
        stubborn: {
          command: 'sh',
          args: [
            '-c',
            `trap '' TERM; "$0" "$1" "$2" --stubborn; exit $?`,
            process.execPath,
            join(FIXTURES, 'escapingServer.mjs'),
            stubborn,
          ],
        },
        escaping: { command: process.execPath, args: [join(FIXTURES, 'escapingServer.mjs'), escaping] },
      },
    },
    ready: () => {
      const all = [...recorded(stubborn), ...recorded(escaping)];
      return all.length >= 3 ? all : undefined; // stubborn server, escaping server, escaped child
    },
  };
}

type Scenario = 'stdio proxy' | 'agent' | 'agent holding stdin' | 'bridge' | 'app';

/** Starts the chain for `scenario`; returns the pid to SIGKILL. */
function startChain(scenario: Scenario, dir: string, config: unknown): number {
  const env = envFor(dir);
  const configFile = join(dir, 'mcp.json');
  writeFileSync(configFile, JSON.stringify(config));
  const spawnIt = (args: string[]) => {
    const c = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    c.stdout!.resume();
    c.stderr!.resume();
    c.stdin!.on('error', () => {});
    started.push(c);
    return c.pid!;
  };
  switch (scenario) {
    case 'stdio proxy':
      // The test holds the proxy's stdin open: only the SIGKILL ends it.
      return spawnIt([CLI, '--config-file', configFile]);
    case 'bridge':
      return spawnIt([CLI, 'proxy', '--port', '0', '--config-file', configFile]);
    case 'agent holding stdin': {
      // The proxy's stdin is a FIFO the test keeps open: the agent's death brings no EOF, only
      // the parent watchdog notices it.
      const fifo = join(dir, 'stdin.fifo');
      execFileSync('mkfifo', [fifo]);
      fds.push(openSync(fifo, constants.O_RDWR));
      return spawnIt([
        join(FIXTURES, 'holdingParent.mjs'),
        join(dir, 'proxy.pid'),
        fifo,
        CLI,
        '--config-file',
        configFile,
      ]);
    }
    case 'agent':
      return spawnIt([
        join(FIXTURES, 'killableParent.mjs'),
        'agent',
        join(dir, 'proxy.pid'),
        CLI,
        '--config-file',
        configFile,
      ]);
    case 'app':
      // As src/main/runtime/bridgeProcess.ts spawns the bridge.
      return spawnIt([
        join(FIXTURES, 'killableParent.mjs'),
        'app',
        join(dir, 'proxy.pid'),
        CLI,
        'proxy',
        '--port',
        '0',
        '--config-file',
        configFile,
        '--shutdown-timeout',
        '2000',
      ]);
  }
}

describe.skipIf(!linux)('no process outlives a SIGKILLed proxy chain', () => {
  for (const scenario of ['stdio proxy', 'agent', 'agent holding stdin', 'bridge', 'app'] as const) {
    it(
      `SIGKILL of the ${scenario}: every server and descendant is gone within 5 s`,
      async () => {
        const dir = tempDir();
        const s = servers(dir);
        const target = startChain(scenario, dir, s.config);
        const serverPids = await waitFor(s.ready, scaled(20_000), 'the servers to record their pids');
        await waitFor(() => escapedListed(dir), scaled(20_000), 'the escaped child in the registry');
        const tree = new Set([...descendantsOf(target), ...serverPids]);
        for (const p of tree) pids.add(p);
        // The sh wrapper, the node server under it, the escaping server and its escaped child.
        expect(tree.size).toBeGreaterThanOrEqual(4);
        const factor = loadFactor();
        const deadline = Math.round(KILL_DEADLINE_MS * factor);
        const killedAt = Date.now();
        kill(target);
        let left: number[] = [];
        await waitFor(() => (left = [...tree].filter((p) => isRunning(p))).length === 0, deadline, 'survivors').catch(
          () => undefined,
        );
        const bound = `bound ${KILL_DEADLINE_MS} ms x load factor ${factor.toFixed(2)} = ${deadline} ms`;
        expect(left, `still running ${Date.now() - killedAt} ms after SIGKILL of the ${scenario} (${bound})`).toEqual(
          [],
        );
      },
      scaled(30_000),
    );
  }
});

/** A process in its own group, as a proxy's server would be; its pid and start time. */
function liveGroup(): { pid: number; start: string } {
  const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore', detached: true });
  started.push(c);
  pids.add(c.pid!);
  return { pid: c.pid!, start: startTimeOf(c.pid!)! };
}

/** A pid and start time of a process that has exited (a dead registry owner). */
async function deadOwner(): Promise<{ pid: number; start: string }> {
  const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 200)'], { stdio: 'ignore' });
  const start = await waitFor(() => startTimeOf(c.pid!), scaled(10_000), 'a start time');
  await new Promise((r) => c.once('exit', r));
  return { pid: c.pid!, start };
}

describe.skipIf(!linux)('the sweep at the next start', () => {
  it('kills the groups a dead owner left behind, and not a process whose start time differs (pid reuse)', async () => {
    const dir = tempDir();
    const run = join(dir, 'run');
    mkdirSync(run, { mode: 0o700 });
    const orphan = liveGroup();
    const innocent = liveGroup();
    const owner = await deadOwner();
    const file = (name: string, group: { pid: number; start: string }) =>
      writeFileSync(
        join(run, name),
        JSON.stringify({
          owner: { pid: owner.pid, start: owner.start },
          groups: [{ pgid: group.pid, start: group.start }],
          pids: [],
        }),
      );
    file(`${owner.pid}-${owner.start}.json`, orphan);
    // The same pid, but not the process that was recorded: it must be left alone.
    file(`${owner.pid}-${owner.start}-b.json`, { pid: innocent.pid, start: String(Number(innocent.start) + 1) });
    const proxy = spawn(process.execPath, [CLI, '--config', JSON.stringify({ mcpServers: {} })], {
      env: envFor(dir),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    started.push(proxy);
    proxy.stdout.resume();
    proxy.stderr.resume();
    // The proxy's start and the sweep's SIGTERM, 1 s and SIGKILL: seconds on a loaded machine.
    await waitFor(() => !isRunning(orphan.pid), 20_000, 'the orphan group to be killed by the sweep');
    await waitFor(() => readdirSync(run).length === 0, scaled(10_000), 'the swept registry files to be removed');
    expect(isRunning(innocent.pid), 'a process whose start time does not match must not be killed').toBe(true);
  }, 45_000);
});
