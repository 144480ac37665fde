// How the built CLI ends, as a real process: stdin EOF, its parent SIGKILLed (watchdog),
// stdout's reader gone (EPIPE), and the idle timeout. Each case checks that the upstream
// server (and its own child) is gone too, by pids the fixture server recorded.
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  CLI,
  CliProcess,
  ROOT,
  cleanup,
  configJson,
  isAlive,
  pidServerEntry,
  readPids,
  sleep,
  tempDir,
  trackPids,
  waitFor,
  waitNoProcess,
} from '../../helpers/cliProcess.js';

afterEach(cleanup);

const HOLDING_PARENT = join(ROOT, 'tests', 'fixtures', 'holdingParent.mjs');
/**
 * How long a test watches for an exit that must not happen: many times the 200 ms watchdog
 * interval and the gaps an idle timeout would notice. What the proxy logs as its reason to
 * stop is checked afterwards, so an exit a loaded machine delays past this still fails.
 */
const NO_EXIT_WINDOW_MS = 1500;

/** A proxy over one pidServer (with a grandchild); returns it with the pid file path. */
function proxyWithPidServer(extraArgs: string[] = []): { p: CliProcess; pidFile: string } {
  const pidFile = join(tempDir(), 'pids.jsonl');
  const p = new CliProcess(['--config', configJson({ srv: pidServerEntry(pidFile, ['--grandchild']) }), ...extraArgs]);
  return { p, pidFile };
}

/**
 * Starts holdingParent.mjs, which spawns the CLI with `args` and stdin from a FIFO whose
 * writer this test holds (so the parent's death is not an EOF for the proxy).
 */
async function startUnderHoldingParent(args: string[], dir: string) {
  const fifo = join(dir, 'stdin.fifo');
  execFileSync('mkfifo', [fifo]);
  // O_RDWR never blocks on a FIFO (Linux), and keeps a writer open for as long as we like.
  const stdinFd = openSync(fifo, constants.O_RDWR);
  const proxyPidFile = join(dir, 'proxy.pid');
  const parent = spawn(process.execPath, [HOLDING_PARENT, proxyPidFile, fifo, CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  parent.stdout!.on('data', (d: Buffer) => (out.stdout += d.toString('utf8')));
  parent.stderr!.on('data', (d: Buffer) => (out.stderr += d.toString('utf8')));
  trackPids(parent.pid!);
  const proxyPid = await waitFor(
    () => existsSync(proxyPidFile) && Number(readFileSync(proxyPidFile, 'utf8')),
    10_000,
    'the proxy pid',
  );
  trackPids(proxyPid);
  let closed = false;
  return {
    parent,
    proxyPid,
    out,
    send: (msg: unknown) => writeSync(stdinFd, `${JSON.stringify(msg)}\n`),
    closeStdin: () => {
      if (!closed) closeSync(stdinFd);
      closed = true;
    },
    killParent: async () => {
      const gone = new Promise((r) => parent.once('exit', r));
      parent.kill('SIGKILL');
      await gone;
    },
  };
}

async function upstreamPids(pidFile: string): Promise<number[]> {
  const pids = await waitFor(
    () => {
      const r = readPids(pidFile);
      return r.server.length > 0 && r.grandchild.length > 0 && r;
    },
    10_000,
    'the fixture server to record its pids',
  );
  return [...pids.server, ...pids.grandchild];
}

describe('CLI lifecycle', () => {
  it('exits 0 on stdin EOF and takes its server and the server child with it', async () => {
    const { p, pidFile } = proxyWithPidServer();
    await p.initialize();
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await p.reply(2)).result.tools.map((t: { name: string }) => t.name)).toContain('srv__echo');
    const pids = await upstreamPids(pidFile);
    for (const pid of pids) expect(isAlive(pid)).toBe(true);

    p.child.stdin!.end();
    expect(await p.waitExit(10_000)).toEqual({ code: 0, signal: null });
    for (const pid of pids) expect(await waitNoProcess(pid, 5000)).toBe(true);
  });

  it.skipIf(process.platform === 'win32')(
    'exits through the parent watchdog when the process that spawned it is SIGKILLed',
    async () => {
      const dir = tempDir();
      const pidFile = join(dir, 'pids.jsonl');
      const args = [
        '--config',
        configJson({ srv: pidServerEntry(pidFile, ['--grandchild']) }),
        '--watchdog-interval',
        '200',
      ];
      const h = await startUnderHoldingParent(args, dir);
      try {
        // The proxy really serves through the FIFO before its parent dies.
        h.send({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        });
        await waitFor(() => h.out.stdout.includes('"id":1'), 10_000, 'the initialize reply');
        const pids = await upstreamPids(pidFile);

        await h.killParent();
        expect(await waitNoProcess(h.proxyPid, 5000)).toBe(true);
        for (const pid of pids) expect(await waitNoProcess(pid, 5000)).toBe(true);
        // It was the watchdog, not an EOF (our writer on its stdin is still open).
        expect(h.out.stderr).toMatch(/shutting down: parent process \d+ is gone/);
        expect(h.out.stderr).not.toMatch(/client closed the connection/);
      } finally {
        h.closeStdin();
      }
    },
  );

  it.skipIf(process.platform === 'win32')(
    'with --no-watchdog stays up after its parent is SIGKILLed, until stdin ends',
    async () => {
      const dir = tempDir();
      const pidFile = join(dir, 'pids.jsonl');
      // The interval of the test above: were --no-watchdog ignored, the proxy would exit within
      // 200 ms of its parent's death (the default interval, 2 s, is longer than the wait below).
      const h = await startUnderHoldingParent(
        ['--config', configJson({ srv: pidServerEntry(pidFile) }), '--no-watchdog', '--watchdog-interval', '200'],
        dir,
      );
      try {
        const pids = await waitFor(
          () => readPids(pidFile).server.length > 0 && readPids(pidFile).server,
          10_000,
          'the server pid',
        );
        await h.killParent();
        // The control for the test above: without the watchdog nothing notices the parent's death.
        await sleep(NO_EXIT_WINDOW_MS);
        expect(isAlive(h.proxyPid)).toBe(true);
        h.closeStdin();
        expect(await waitNoProcess(h.proxyPid, 10_000)).toBe(true);
        for (const pid of pids) expect(await waitNoProcess(pid, 5000)).toBe(true);
        expect(h.out.stderr).toMatch(/client closed the connection/);
        expect(h.out.stderr).not.toMatch(/parent process \d+ is gone/);
      } finally {
        h.closeStdin();
      }
    },
  );

  it('--parent-pid watches another process than its parent', async () => {
    const watched = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    trackPids(watched.pid!);
    const { p, pidFile } = proxyWithPidServer(['--parent-pid', String(watched.pid), '--watchdog-interval', '200']);
    await p.initialize();
    const pids = await upstreamPids(pidFile);
    const gone = new Promise((r) => watched.once('exit', r));
    watched.kill('SIGKILL');
    await gone;
    expect(await p.waitExit(5000)).toEqual({ code: 0, signal: null });
    expect(p.stderr).toContain(`shutting down: parent process ${watched.pid} is gone`);
    for (const pid of pids) expect(await waitNoProcess(pid, 5000)).toBe(true);
  });

  it('exits 0 when the reader of its stdout goes away (EPIPE)', async () => {
    const { p, pidFile } = proxyWithPidServer();
    await p.initialize();
    const pids = await upstreamPids(pidFile);
    p.child.stdout!.destroy();
    // Replies now hit a pipe without a reader; keep asking until the proxy notices.
    let id = 10;
    await waitFor(
      () => p.exit !== undefined || (p.send({ jsonrpc: '2.0', id: id++, method: 'ping' }), false),
      10_000,
      'the proxy to notice EPIPE',
      100,
    );
    expect(await p.waitExit(10_000)).toEqual({ code: 0, signal: null });
    expect(p.stderr).toMatch(/output closed by peer \(EPIPE\)/);
    for (const pid of pids) expect(await waitNoProcess(pid, 5000)).toBe(true);
  });

  it('exits after --idle-timeout without input, and its server goes too', async () => {
    // Pings every 100 ms keep it alive while the server starts (so its pids are known), then
    // silence; the timeout leaves a loaded machine room to delay a ping.
    const { p, pidFile } = proxyWithPidServer(['--idle-timeout', '1000']);
    let id = 100;
    const keepAlive = setInterval(() => p.send({ jsonrpc: '2.0', id: id++, method: 'ping' }), 100);
    const pids = await upstreamPids(pidFile).finally(() => clearInterval(keepAlive));
    expect(p.exit).toBeUndefined();
    expect(await p.waitExit(10_000)).toEqual({ code: 0, signal: null });
    expect(p.stderr).toMatch(/no message for 1000 ms/);
    expect(p.child.stdin!.writableEnded).toBe(false); // it was not EOF
    for (const pid of pids) expect(await waitNoProcess(pid, 5000)).toBe(true);
  });

  it('with --idle-timeout 0 never exits for idleness', async () => {
    const { p } = proxyWithPidServer(['--idle-timeout', '0']);
    await p.initialize();
    await sleep(NO_EXIT_WINDOW_MS);
    expect(p.exit).toBeUndefined();
    p.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect((await p.reply(2)).result).toEqual({});
    p.child.stdin!.end();
    expect((await p.waitExit(10_000)).code).toBe(0);
    expect(p.stderr).not.toMatch(/no message for/);
  });

  it('exits 0 on SIGTERM and takes the whole server tree with it', async () => {
    const { p, pidFile } = proxyWithPidServer();
    await p.initialize();
    const pids = await upstreamPids(pidFile);
    p.child.kill('SIGTERM');
    expect(await p.waitExit(10_000)).toEqual({ code: 0, signal: null });
    expect(p.stderr).toMatch(/shutting down: received SIGTERM/);
    for (const pid of pids) expect(await waitNoProcess(pid, 5000)).toBe(true);
  });

  describe.skipIf(process.platform === 'win32')('with a server (behind sh) that ignores SIGTERM and stdin EOF', () => {
    const IGNORES_TERM = join(ROOT, 'tests', 'fixtures', 'ignoresTermServer.sh');

    async function start(extra: string[]): Promise<{ p: CliProcess; serverPid: number }> {
      const pidFile = join(tempDir(), 'pid.txt');
      const p = new CliProcess([
        '--config',
        configJson({ stubborn: { command: 'sh', args: [IGNORES_TERM, pidFile] } }),
        ...extra,
      ]);
      await p.initialize();
      p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      expect((await p.reply(2)).result.tools.map((t: { name: string }) => t.name)).toContain('stubborn__pid');
      const serverPid = await waitFor(
        () => existsSync(pidFile) && Number(readFileSync(pidFile, 'utf8').trim()),
        10_000,
        'the server pid',
      );
      trackPids(serverPid);
      return { p, serverPid };
    }

    it('a second SIGTERM exits at once with 130, and the server is still killed', async () => {
      const { p, serverPid } = await start([]);
      p.child.kill('SIGTERM');
      await waitFor(() => p.stderr.includes('shutting down: received SIGTERM'), 5000, 'the graceful stop to begin');
      p.child.kill('SIGTERM');
      expect(await p.waitExit(5000)).toEqual({ code: 130, signal: null });
      expect(p.stderr).toMatch(/second SIGTERM: exiting now/);
      expect(await waitNoProcess(serverPid, 5000)).toBe(true);
    });

    it('--shutdown-timeout bounds the graceful stop: the server is SIGKILLed before the bound, and the stop ends in time', async () => {
      // Under the server's 2 s stdin grace: it still runs when the SIGKILL comes, 500 ms before the bound.
      const { p, serverPid } = await start(['--shutdown-timeout', '1500']);
      p.child.stdin!.end();
      expect(await p.waitExit(10_000)).toEqual({ code: 0, signal: null });
      expect(p.stderr).toMatch(/stop running out of time: SIGKILL to 1 server process tree\(s\) still running/);
      expect(p.stderr).not.toMatch(/forcing exit/);
      expect(await waitNoProcess(serverPid, 5000)).toBe(true);
    });
  });
});
