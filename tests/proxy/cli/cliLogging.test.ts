// Logging of the built CLI: MCP_PROXY_LOG_FILE gets the same lines as stderr, in the
// documented `[YYYY-MM-DD HH:mm:ss.SSS] [level] [tag] message` format, with each server's
// stderr under its id; MCP_PROXY_LOG_LEVEL / --log-level filter; several processes share
// one file; a log file that cannot be written never breaks the proxy; stdout stays protocol;
// what servers and clients put in a line (names, stderr) reaches a terminal escaped.
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CliProcess,
  INIT,
  INITIALIZED,
  cleanup,
  configJson,
  pidServerEntry,
  tempDir,
} from '../../helpers/cliProcess.js';
import { FIXTURES } from '../../helpers/paths.js';

afterEach(cleanup);

const LINE = /^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3})\] \[(debug|info|warn|error)\] \[([^\]]+)\] (.*)$/;

/** A full session (initialize, tools/list, a call, EOF) with the given env and args. */
async function runSession(
  serverId: string,
  env: NodeJS.ProcessEnv,
  args: string[] = [],
  serverArgs: string[] = [],
): Promise<CliProcess> {
  const pidFile = join(tempDir(), 'pids.jsonl');
  const p = new CliProcess(['--config', configJson({ [serverId]: pidServerEntry(pidFile, serverArgs) }), ...args], {
    env: { ...process.env, ...env },
  });
  await p.initialize();
  p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  await p.reply(2);
  p.send({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: `${serverId}__echo`, arguments: { text: 'hi' } },
  });
  await p.reply(3);
  p.child.stdin!.end();
  expect((await p.waitExit(10_000)).code).toBe(0);
  // stdout: protocol only, in every case.
  for (const line of p.lines()) expect(JSON.parse(line).jsonrpc).toBe('2.0');
  return p;
}

/** Entries of a log text: each non-continuation line parsed; continuation lines start with 4 spaces. */
function entries(text: string): { ts: string; level: string; tag: string; message: string }[] {
  const out: { ts: string; level: string; tag: string; message: string }[] = [];
  for (const line of text.split('\n').filter(Boolean)) {
    if (line.startsWith('    ')) continue;
    const m = LINE.exec(line);
    expect(m, `not a log line: ${line}`).not.toBeNull();
    out.push({ ts: m![1], level: m![2], tag: m![3], message: m![4] });
  }
  return out;
}

describe('CLI logging', () => {
  it('writes the same formatted lines to stderr and MCP_PROXY_LOG_FILE (folder created), server stderr under its id', async () => {
    const file = join(tempDir(), 'not', 'yet', 'there', 'proxy.log');
    const p = await runSession(
      'memo',
      { MCP_PROXY_LOG_FILE: file, MCP_PROXY_LOG_LEVEL: 'info' },
      [],
      ['--stderr', 'hello from the server: é 漢字'],
    );
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(p.stderr);
    const list = entries(text);
    expect(list.length).toBeGreaterThanOrEqual(3);
    expect(list).toContainEqual(
      expect.objectContaining({ level: 'info', tag: 'memo', message: 'hello from the server: é 漢字' }),
    );
    expect(list).toContainEqual(
      expect.objectContaining({
        level: 'info',
        tag: 'proxy',
        message: expect.stringMatching(/^stdio aggregation of 1 server\(s\): memo$/),
      }),
    );
    expect(list).toContainEqual(expect.objectContaining({ tag: 'memo', message: 'ready: 3 tools' }));
    expect(list.some((e) => e.level === 'debug')).toBe(false);
    // Local time: the stamp parses back to a moment within the test's run.
    const [d, t] = list[0].ts.split(' ');
    const stamp = new Date(`${d}T${t}`).getTime();
    expect(Math.abs(stamp - Date.now())).toBeLessThan(5 * 60_000);
  });

  it('MCP_PROXY_LOG_LEVEL filters, and --log-level overrides it', async () => {
    const dir = tempDir();
    const debugFile = join(dir, 'debug.log');
    await runSession('srv', { MCP_PROXY_LOG_FILE: debugFile, MCP_PROXY_LOG_LEVEL: 'debug' });
    const debug = entries(readFileSync(debugFile, 'utf8'));
    expect(debug.some((e) => e.level === 'debug')).toBe(true);

    const warnFile = join(dir, 'warn.log');
    const quiet = await runSession(
      'srv',
      { MCP_PROXY_LOG_FILE: warnFile, MCP_PROXY_LOG_LEVEL: 'warn' },
      [],
      ['--stderr', 'server chatter'],
    );
    expect(quiet.stderr).toBe('');
    expect(() => readFileSync(warnFile, 'utf8')).toThrow(/ENOENT/); // nothing at warn or above: no file at all

    const overrideFile = join(dir, 'override.log');
    await runSession('srv', { MCP_PROXY_LOG_FILE: overrideFile, MCP_PROXY_LOG_LEVEL: 'debug' }, [
      '--log-level',
      'info',
    ]);
    const overridden = entries(readFileSync(overrideFile, 'utf8'));
    expect(overridden.length).toBeGreaterThan(0);
    expect(overridden.some((e) => e.level === 'debug')).toBe(false);
  });

  it('lets several proxies share one log file, every line whole', async () => {
    const file = join(tempDir(), 'shared.log');
    const env = { MCP_PROXY_LOG_FILE: file, MCP_PROXY_LOG_LEVEL: 'debug' };
    const [a, b] = await Promise.all([
      runSession('alpha', env, [], ['--stderr', 'alpha says hi']),
      runSession('beta', env, [], ['--stderr', 'beta says hi']),
    ]);
    const text = readFileSync(file, 'utf8');
    const list = entries(text);
    expect(list).toContainEqual(expect.objectContaining({ tag: 'alpha', message: 'alpha says hi' }));
    expect(list).toContainEqual(expect.objectContaining({ tag: 'beta', message: 'beta says hi' }));
    // Each process's lines are all there, whole (one write per entry).
    const lines = new Set(text.split('\n'));
    for (const line of [...a.stderr.split('\n'), ...b.stderr.split('\n')]) expect(lines.has(line)).toBe(true);
  });

  it('keeps serving when the log file cannot be written, warning once on stderr', async () => {
    const dir = tempDir();
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, 'not a folder');
    const p = await runSession('srv', { MCP_PROXY_LOG_FILE: join(blocker, 'proxy.log'), MCP_PROXY_LOG_LEVEL: 'info' });
    const warnings = p.stderr.split('\n').filter((l) => l.includes('cannot write log file'));
    expect(warnings).toHaveLength(1);
    expect(entries(p.stderr)).toContainEqual(expect.objectContaining({ tag: 'srv', message: 'ready: 3 tools' }));
  });

  it('keeps serving when nobody reads its stderr any more (EPIPE on stderr), logging on to the file', async () => {
    const file = join(tempDir(), 'after-stderr.log');
    const pidFile = join(tempDir(), 'pids.jsonl');
    const p = new CliProcess(
      [
        '--config',
        configJson({ srv: pidServerEntry(pidFile, ['--stderr', 'server line after the reader left']) }),
        '--log-level',
        'debug',
      ],
      {
        env: { ...process.env, MCP_PROXY_LOG_FILE: file },
      },
    );
    p.child.stderr!.destroy();
    await p.initialize();
    p.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'srv__echo', arguments: { text: 'still answering' } },
    });
    expect((await p.reply(2)).result.content[0].text).toBe('still answering');
    p.child.stdin!.end();
    expect(await p.waitExit(10_000)).toEqual({ code: 0, signal: null });
    expect(entries(readFileSync(file, 'utf8'))).toContainEqual(
      expect.objectContaining({ tag: 'srv', message: 'server line after the reader left' }),
    );
  });

  it('escapes the control, DEL and bidi characters that server and client names and server stderr carry, in the log and the activity file', async () => {
    // A carriage return, a clear screen, an OSC 52 clipboard write, a right-to-left override,
    // an 8-bit CSI and a DEL: a terminal showing the raw line would act on every one.
    const hostile = '\r\x1b[2J\x1b]52;c;cHduZWQ=\x07\u202etxt.exe\x9b31m\x7f';
    const shown = '\\r\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07\\u202etxt.exe\\x9b31m\\x7f';
    const file = join(tempDir(), 'proxy.log');
    const dataDir = tempDir();
    const p = new CliProcess(
      [
        '--config',
        JSON.stringify({
          approval: 'allow',
          activity: 'file',
          mcpServers: {
            noisy: pidServerEntry(join(tempDir(), 'pids.jsonl'), ['--stderr', `starting${hostile}`]),
            named: { command: process.execPath, args: [join(FIXTURES, 'namedToolsServer.mjs'), `wipe${hostile}`] },
          },
        }),
      ],
      { env: { ...process.env, MCP_PROXY_LOG_FILE: file, MCP_PROXY_LOG_LEVEL: 'info', QIMING_DATA_DIR: dataDir } },
    );
    p.send({ ...INIT, params: { ...INIT.params, clientInfo: { name: `agent${hostile}`, version: '1.0.0' } } });
    await p.reply(1);
    p.send(INITIALIZED);
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const tools = (await p.reply(2)).result.tools as { name: string }[];
    const wipe = tools.find((t) => t.name.startsWith('named__wipe'))!;
    // Its call is logged by the approval policy: the server's tool name and the client's name.
    p.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: wipe.name, arguments: {} } });
    expect((await p.reply(3)).result.content[0].text).toBe(`ran wipe${hostile}`);
    p.child.stdin!.end();
    expect((await p.waitExit(10_000)).code).toBe(0);

    const text = readFileSync(file, 'utf8');
    expect(text).toBe(p.stderr);
    // No raw C0 but the line ends (and tabs), no DEL, C1 or bidi control anywhere; every line a log line.
    const unsafe = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
    expect(text).not.toMatch(unsafe);
    const list = entries(text);
    expect(list).toContainEqual(expect.objectContaining({ tag: 'noisy', message: `starting${shown}` }));
    expect(list).toContainEqual(
      expect.objectContaining({
        tag: 'proxy',
        message: expect.stringContaining(`tool "wipe${shown}" for agent${shown} (session 1): allow`),
      }),
    );
    // The activity file's JSON lines carry the client's name escaped, the same value once parsed.
    const activity = readFileSync(join(dataDir, 'activity.jsonl'), 'utf8');
    expect(activity).not.toMatch(unsafe);
    const call = activity
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { method: string; client?: string })
      .find((r) => r.method === 'tools/call')!;
    expect(call.client).toBe(`agent${hostile}`);
  });
});
