// MCP_PROXY_LOG_FILE is only ever opened when it is a regular file (or
// missing, then created), and never in a way that can block. Anything else (a /proc file, a
// FIFO without a reader, a directory, a device) costs one warning on stderr; the proxy
// answers and exits promptly as if no file had been named.
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CLI,
  CliProcess,
  cleanup,
  configJson,
  INIT,
  pidServerEntry,
  readPids,
  tempDir,
  waitFor,
} from '../../helpers/cliProcess.js';
import { exitOf, exitWithin } from '../../helpers/childExit.js';

afterEach(cleanup);

type Target = { name: string; path: () => string; end: 'eof' | 'SIGTERM' };

const fifo = (): string => {
  const path = join(tempDir(), 'log.fifo');
  execFileSync('mkfifo', [path]);
  return path;
};
const dir = (): string => {
  const path = join(tempDir(), 'a-dir');
  mkdirSync(path);
  return path;
};

const TARGETS: Target[] = [
  { name: '/proc/self/status', path: () => '/proc/self/status', end: 'eof' },
  { name: '/proc/1/mem', path: () => '/proc/1/mem', end: 'SIGTERM' },
  // The proxy's own stdin (its log lines would come back as input, warned about, and so on)
  // and stdout (log lines in the protocol stream).
  { name: '/proc/self/fd/0', path: () => '/proc/self/fd/0', end: 'SIGTERM' },
  { name: '/proc/self/fd/1', path: () => '/proc/self/fd/1', end: 'eof' },
  { name: 'a FIFO without a reader (stdin EOF)', path: fifo, end: 'eof' },
  { name: 'a FIFO without a reader (SIGTERM)', path: fifo, end: 'SIGTERM' },
  { name: 'a directory', path: dir, end: 'eof' },
  { name: '/dev/null', path: () => '/dev/null', end: 'SIGTERM' },
];

describe.skipIf(process.platform !== 'linux')('MCP_PROXY_LOG_FILE that is not a regular file', () => {
  it.each(TARGETS)('$name: one warning, answers initialize + tools/list, exits on $end', async ({ path, end }) => {
    const file = path();
    const pidFile = join(tempDir(), 'pids.jsonl');
    const p = new CliProcess(
      ['--config', configJson({ srv: pidServerEntry(pidFile, ['--stderr', 'server says hi']) })],
      {
        env: { ...process.env, MCP_PROXY_LOG_FILE: file, MCP_PROXY_LOG_LEVEL: 'info' },
      },
    );
    await p.initialize();
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await p.reply(2, 5000)).result.tools.map((t: { name: string }) => t.name)).toContain('srv__echo');
    readPids(pidFile);
    const t0 = Date.now();
    if (end === 'eof') p.child.stdin!.end();
    else p.child.kill('SIGTERM');
    await p.waitExit(5000);
    console.log(`${file}: exited ${Date.now() - t0} ms after ${end}`);
    const warnings = p.stderr.split('\n').filter((l) => l.includes('log file'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /\[warn\] \[logger\] cannot write log file .*: .*not a regular file; not logging to it$/,
    );
    expect(p.stderr).toContain('[info] [srv] server says hi');
    for (const line of p.lines()) expect(JSON.parse(line).jsonrpc).toBe('2.0');
  });

  it('/proc/self/fd/0 when stdin is a real pipe: its log lines never come back as input', async () => {
    const pidFile = join(tempDir(), 'pids.jsonl');
    const config = configJson({ srv: pidServerEntry(pidFile) });
    // `cat |` makes the proxy's stdin a pipe (Node's own stdio pipes are socket pairs).
    const sh = spawn('sh', ['-c', 'cat | "$@"', 'sh', process.execPath, CLI, '--config', config], {
      env: { ...process.env, MCP_PROXY_LOG_FILE: '/proc/self/fd/0', MCP_PROXY_LOG_LEVEL: 'info' },
    });
    const exited = exitOf(sh, () => {});
    let out = '';
    let err = '';
    sh.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    sh.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
    try {
      sh.stdin!.write(`${JSON.stringify(INIT)}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
      await waitFor(() => out.includes('"id":2'), 5000, `the tools/list answer (stderr: ${err.slice(-500)})`);
      readPids(pidFile);
      sh.stdin!.end();
      await exitWithin(exited, 5000, () => `the pipeline did not exit; stderr: ${err.slice(-500)}`);
    } finally {
      if (sh.exitCode === null) sh.kill('SIGKILL');
    }
    const ids = out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual([1, 2]);
    expect(err.split('\n').filter((l) => l.includes('log file'))).toHaveLength(1);
    expect(err).not.toContain('bad inbound frame');
  });

  it('still creates a missing file and appends to a regular one', async () => {
    const file = join(tempDir(), 'new', 'proxy.log');
    for (const round of [1, 2]) {
      const pidFile = join(tempDir(), 'pids.jsonl');
      const p = new CliProcess(
        ['--config', configJson({ srv: pidServerEntry(pidFile, ['--stderr', `round ${round}`]) })],
        {
          env: { ...process.env, MCP_PROXY_LOG_FILE: file, MCP_PROXY_LOG_LEVEL: 'info' },
        },
      );
      await p.initialize();
      readPids(pidFile);
      p.child.stdin!.end();
      await p.waitExit(5000);
      expect(p.stderr).not.toContain('log file');
    }
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('[info] [srv] round 1');
    expect(text).toContain('[info] [srv] round 2');
  });
});
