// How the real bridge ends: SIGTERM, SIGINT, stdin EOF, IPC {type:'shutdown'}, a closed
// IPC channel; a second signal; the shutdown deadline; and a SIGKILLed bridge. Every way
// leaves no server process behind, including one that ignores SIGTERM and stdin EOF
// behind a shell wrapper.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  builtCli,
  cleanupBridges,
  everythingEntry,
  fixture,
  notRunning,
  memoryEntry,
  nodeEntry,
  readPidFile,
  spawnBridge,
  startBridge,
  tempDir,
  trackPids,
  waitFor,
  waitNotRunning,
  type BridgeProcess,
  type ReadyLine,
} from '../../helpers/bridgeProcess.js';

afterEach(cleanupBridges);

/** The graceful bound the issue sets (the default --shutdown-timeout), plus process exit slack. */
const EXIT_BOUND_MS = 5_000 + 1_500;

/**
 * A bridge with a quick server and, unless `stubborn` is false, one that only SIGKILL stops
 * (sh -> node, ignoring SIGTERM and stdin EOF; its graceful stop takes the whole stdin and
 * SIGTERM grace, about 4 s, so only some tests pay for it).
 */
async function bridgeWithStubbornServer(
  opts: { ipc?: boolean; args?: string[]; stubborn?: boolean } = {},
): Promise<{ b: BridgeProcess; pids: number[] }> {
  const dir = tempDir();
  const pidFile = join(dir, 'stubborn.pids');
  const stubborn = opts.stubborn ?? true;
  const b = await startBridge({
    ipc: opts.ipc,
    args: opts.args,
    config: {
      mcpServers: {
        memory: memoryEntry(dir),
        ...(stubborn ? { stubborn: { command: 'sh', args: [fixture('ignoresTermServer.sh'), pidFile] } } : {}),
      },
    },
  });
  expect(b.ready!.servers.every((s) => s.state === 'ready')).toBe(true);
  if (!stubborn) return { b, pids: (await b.status()).servers.map((s) => s.pid!) };
  const status = await b.status();
  const grandchild = readPidFile(pidFile);
  expect(grandchild).toHaveLength(1);
  b.remember(...grandchild);
  const pids = [...status.servers.map((s) => s.pid!), ...grandchild];
  expect(pids.every((p) => p > 0 && !notRunning(p))).toBe(true);
  // The node server really is behind the shell: its pid is not the one the bridge spawned.
  expect(status.servers.find((s) => s.id === 'stubborn')!.pid).not.toBe(grandchild[0]);
  return { b, pids };
}

async function expectAllGone(pids: number[]): Promise<void> {
  for (const pid of pids) expect(await waitNotRunning(pid, 2000), `pid ${pid} gone`).toBe(true);
}

describe('bridge shutdown', () => {
  // [trigger, how, needs IPC, with the SIGTERM-ignoring server]
  const triggers: [string, (b: BridgeProcess) => void, boolean, boolean][] = [
    ['SIGTERM', (b) => b.child.kill('SIGTERM'), false, true],
    ['SIGINT', (b) => b.child.kill('SIGINT'), false, false],
    ['stdin EOF', (b) => b.child.stdin!.end(), false, false],
    ["IPC {type:'shutdown'}", (b) => b.child.send({ type: 'shutdown' }), true, false],
    ['the IPC channel closing', (b) => b.child.disconnect(), true, false],
  ];

  it.each(triggers)(
    'on %s: stops accepting, exits 0 within the bound, and no server process is left',
    async (_name, trigger, ipc, stubborn) => {
      const { b, pids } = await bridgeWithStubbornServer({ ipc, stubborn });
      const { client } = await b.client('/mcp/memory');
      await client.listTools();
      const t0 = Date.now();
      trigger(b);
      await waitFor(() => b.stderr.includes('shutting down') || b.exit, 5000, 'the shutdown to begin');
      // New requests are refused from now on (the listener is closed, or answers 503).
      const late = await b.fetch('/health').then(
        (r) => r.status,
        (e: Error) => String(e.cause ?? e),
      );
      expect(String(late)).toMatch(/503|ECONNREFUSED|ECONNRESET|other side closed|SocketError/);
      const exit = await b.waitExit(EXIT_BOUND_MS + 2000);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(Date.now() - t0).toBeLessThan(EXIT_BOUND_MS);
      await expectAllGone(pids);
    },
  );

  it('with a call in flight on a blocked server: the caller gets an error, the bridge exits 0 within the bound', async () => {
    const gate = join(tempDir(), 'gate');
    const b = await startBridge({ config: { mcpServers: { slow: nodeEntry(fixture('slowStartServer.mjs')) } } });
    const pids = (await b.status()).servers.map((s) => s.pid!);
    const { client } = await b.client('/mcp/slow');
    const call = client.callTool({ name: 'block', arguments: { gate } }).then(
      () => 'answered',
      (e: Error) => `failed: ${e.message}`,
    );
    await waitFor(() => existsSync(`${gate}.entered`), 10_000, 'the server to block');
    const t0 = Date.now();
    b.child.kill('SIGTERM');
    expect(await b.waitExit(EXIT_BOUND_MS + 2000)).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(EXIT_BOUND_MS);
    expect(await call).toMatch(/^failed: .*session closed by the proxy/);
    await expectAllGone(pids);
  });

  it('a second signal during a slow graceful stop exits at once, and still leaves no server process', async () => {
    const { b, pids } = await bridgeWithStubbornServer();
    b.child.kill('SIGTERM');
    await waitFor(() => b.stderr.includes('shutting down'), 5000, 'the shutdown to begin');
    b.child.kill('SIGTERM');
    const exit = await b.waitExit(EXIT_BOUND_MS);
    // 130: the forced path (the graceful one exits 0 after the stubborn server's SIGKILL).
    expect(exit.code).toBe(130);
    expect(b.stderr).toMatch(/second SIGTERM: exiting now/);
    await expectAllGone(pids);
  });

  it('--shutdown-timeout bounds the graceful stop: a server tree still running shortly before it is SIGKILLed, and the stop ends in time', async () => {
    // Under the server's 2 s stdin grace: it still runs when the SIGKILL comes, 500 ms before the bound.
    const { b, pids } = await bridgeWithStubbornServer({ args: ['--shutdown-timeout', '1500'] });
    b.child.kill('SIGTERM');
    const exit = await b.waitExit(EXIT_BOUND_MS);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(b.stderr).toMatch(/stop running out of time: SIGKILL to 1 server process tree\(s\) still running/);
    expect(b.stderr).not.toMatch(/forcing exit/);
    await expectAllGone(pids);
  });

  it('stopped while servers are still starting: exits promptly, prints no ready line, leaves no server', async () => {
    const dir = tempDir();
    const b = spawnBridge({
      config: {
        mcpServers: {
          never: nodeEntry(fixture('neverStartsServer.mjs')),
          gated: nodeEntry(fixture('slowStartServer.mjs'), ['--gate', join(dir, 'never-created')]),
        },
      },
    });
    await b.waitListening();
    const pids = (await waitFor(
      async () => {
        const s = await b.status();
        return s.servers.every((x) => x.pid !== undefined && x.state === 'starting') && s.servers.map((x) => x.pid!);
      },
      10_000,
      'both servers spawned and starting',
    )) as number[];
    b.child.kill('SIGTERM');
    expect(await b.waitExit(EXIT_BOUND_MS)).toEqual({ code: 0, signal: null });
    expect(b.stdout).toBe('');
    expect(b.stderr).not.toMatch(/\[bridge\] ready/);
    await expectAllGone(pids);
  });

  it('exits when its parent dies (watchdog), even with stdin and IPC out of play, and its servers go too', async () => {
    // parent: a node process that starts the bridge with stdin from /dev/null and its
    // stdout/stderr passed through to us, then waits to be killed.
    const cfg = JSON.stringify({ mcpServers: { memory: memoryEntry(tempDir()) } });
    const launcher = `const { spawn } = require('node:child_process');
      spawn(process.execPath, ${JSON.stringify([builtCli(), 'proxy', '--port', '0', '--config', cfg, '--watchdog-interval', '200'])}, { stdio: ['ignore', 'inherit', 'inherit'] });
      setInterval(() => {}, 1000);`;
    const env: NodeJS.ProcessEnv = { ...process.env, MCP_BRIDGE_TOKEN: 'watchdog-token-0123456789' };
    delete env.MCP_PROXY_LOG_FILE;
    const parent = spawn(process.execPath, ['-e', launcher], { stdio: ['ignore', 'pipe', 'pipe'], env });
    trackPids(parent.pid);
    let out = '';
    let err = '';
    parent.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    parent.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
    await waitFor(() => out.includes('\n'), 30_000, `the ready line (stderr: ${err.slice(-1000)})`);
    const ready = JSON.parse(out.split('\n')[0]) as ReadyLine;
    trackPids(ready.pid);
    const status = (await (
      await fetch(`${ready.url}/status`, { headers: { Authorization: `Bearer ${ready.token}` } })
    ).json()) as {
      servers: { pid: number }[];
    };
    const serverPid = status.servers[0].pid;
    trackPids(serverPid);
    expect(notRunning(ready.pid)).toBe(false);

    parent.kill('SIGKILL');
    expect(await waitNotRunning(ready.pid, EXIT_BOUND_MS + 2000), 'the bridge exits after its parent died').toBe(true);
    await waitFor(() => /parent process \d+ is gone/.test(err), 5000, 'the watchdog log line');
    expect(await waitNotRunning(serverPid, 2000)).toBe(true);
    expect(out.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('when the bridge is SIGKILLed, its servers still go away (their stdin closes)', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'slow.pids');
    const b = await startBridge({
      config: {
        mcpServers: {
          everything: everythingEntry(),
          memory: memoryEntry(dir),
          slow: nodeEntry(fixture('slowStartServer.mjs'), ['--pid-file', pidFile]),
        },
      },
    });
    const pids = (await b.status()).servers.map((s) => s.pid!);
    expect(pids).toHaveLength(3);
    expect(pids).toContain(readPidFile(pidFile)[0]);
    b.child.kill('SIGKILL');
    expect(await b.waitExit(5000)).toEqual({ code: null, signal: 'SIGKILL' });
    await expectAllGone(pids);
  });
});
