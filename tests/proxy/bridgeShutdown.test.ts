// How the real bridge ends: SIGTERM, SIGINT, stdin EOF, IPC {type:'shutdown'}, a closed
// IPC channel; a second signal; the shutdown deadline; and a SIGKILLed bridge. Every way
// leaves no server process behind, including one that ignores SIGTERM and stdin EOF
// behind a shell wrapper.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanupBridges,
  everythingEntry,
  fixture,
  isGone,
  memoryEntry,
  nodeEntry,
  readPidFile,
  startBridge,
  tempDir,
  waitFor,
  waitGone,
  type BridgeProcess,
} from '../helpers/bridgeProcess.js';

afterEach(cleanupBridges);

/** The graceful bound the issue sets (the default --shutdown-timeout), plus process exit slack. */
const EXIT_BOUND_MS = 5_000 + 1_500;

/**
 * A bridge with a quick server and, unless `stubborn` is false, one that only SIGKILL stops
 * (sh -> node, ignoring SIGTERM and stdin EOF; its graceful stop takes the whole stdin and
 * SIGTERM grace, about 4 s, so only some tests pay for it).
 */
async function bridgeWithStubbornServer(opts: { ipc?: boolean; args?: string[]; stubborn?: boolean } = {}): Promise<{ b: BridgeProcess; pids: number[] }> {
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
  expect(pids.every((p) => p > 0 && !isGone(p))).toBe(true);
  // The node server really is behind the shell: its pid is not the one the bridge spawned.
  expect(status.servers.find((s) => s.id === 'stubborn')!.pid).not.toBe(grandchild[0]);
  return { b, pids };
}

async function expectAllGone(pids: number[]): Promise<void> {
  for (const pid of pids) expect(await waitGone(pid, 2000), `pid ${pid} gone`).toBe(true);
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

  it.each(triggers)('on %s: stops accepting, exits 0 within the bound, and no server process is left', async (_name, trigger, ipc, stubborn) => {
    const { b, pids } = await bridgeWithStubbornServer({ ipc, stubborn });
    const { client } = await b.client('/mcp/memory');
    await client.listTools();
    const t0 = Date.now();
    trigger(b);
    await waitFor(() => b.stderr.includes('shutting down') || b.exit, 5000, 'the shutdown to begin');
    // New requests are refused from now on (the listener is closed, or answers 503).
    const late = await b.fetch('/health').then((r) => r.status, (e: Error) => String(e.cause ?? e));
    expect(String(late)).toMatch(/503|ECONNREFUSED|ECONNRESET|other side closed|SocketError/);
    const exit = await b.waitExit(EXIT_BOUND_MS + 2000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(EXIT_BOUND_MS);
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

  it('--shutdown-timeout bounds the graceful stop; the forced exit still kills every server tree', async () => {
    const { b, pids } = await bridgeWithStubbornServer({ args: ['--shutdown-timeout', '800'] });
    b.child.kill('SIGTERM');
    const exit = await b.waitExit(EXIT_BOUND_MS);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(b.stderr).toMatch(/graceful stop took longer than 800 ms; forcing exit/);
    await expectAllGone(pids);
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
