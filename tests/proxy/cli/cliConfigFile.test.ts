// `--config-file <path>` in every mode of the built CLI (stdio aggregation, proxy, convert),
// and convert's argument handling: -n/--name, --protocol sse|stream, --ping-* validation.
// (Convert's data path and its tool filters are covered by convert.test.ts.)
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CliProcess,
  ROOT,
  cleanup,
  configJson,
  pidServerEntry,
  readPids,
  runCli,
  tempDir,
  trackPids,
  waitFor,
  waitNoProcess,
} from '../../helpers/cliProcess.js';
import { scaled } from '../../helpers/loadScale.js';

const FIXTURE = join(ROOT, 'tests', 'fixtures', 'mcpFixtureServer.mjs');
const servers: ChildProcess[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) {
    if (s.exitCode === null && s.signalCode === null) {
      const gone = new Promise((r) => s.once('exit', r));
      s.kill('SIGKILL');
      await gone;
    }
  }
  await cleanup();
});

/** The SDK fixture server over HTTP ('http' = streamable HTTP at /mcp, 'sse' at /sse) on a free port. */
async function remoteFixture(kind: 'http' | 'sse'): Promise<string> {
  const child = spawn(process.execPath, [FIXTURE, '--transport', kind, '--port', '0', '--name', `remote-${kind}`], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  servers.push(child);
  trackPids(child.pid!);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const port = await waitFor(() => /listening (\d+)/.exec(out)?.[1], scaled(10_000), 'the fixture server to listen');
  return `http://127.0.0.1:${port}/${kind === 'http' ? 'mcp' : 'sse'}`;
}

function writeConfig(servers: Record<string, unknown>): { dir: string; file: string } {
  const dir = tempDir();
  const file = join(dir, 'mcp config.json'); // a space in the path, as on real desktops
  writeFileSync(file, configJson(servers));
  return { dir, file };
}

/** initialize + tools/list over a raw session; returns the tool names, then ends stdin. */
async function toolNames(p: CliProcess): Promise<string[]> {
  await p.initialize();
  p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const names = ((await p.reply(2)).result.tools as { name: string }[]).map((t) => t.name);
  p.child.stdin!.end();
  expect((await p.waitExit(10_000)).code).toBe(0);
  return names;
}

describe('--config-file in every mode', () => {
  it('stdio aggregation reads the file', async () => {
    const { dir, file } = writeConfig({ srv: pidServerEntry(join(tempDir(), 'pids.jsonl')) });
    expect(await toolNames(new CliProcess(['--config-file', file], { cwd: dir }))).toEqual([
      'srv__echo',
      'srv__add',
      'srv__secret_tool',
    ]);
  });

  it('proxy mode reads the file and reports its servers in the ready line', async () => {
    const pidFile = join(tempDir(), 'pids.jsonl');
    const { file } = writeConfig({ srv: pidServerEntry(pidFile), off: { command: 'node', disabled: true } });
    const p = new CliProcess(['proxy', '--port', '0', '--config-file', file]);
    const ready = await waitFor(
      () => (p.lines().length > 0 ? (JSON.parse(p.lines()[0]) as Record<string, any>) : undefined),
      15_000,
      'the ready line',
    );
    expect(ready).toMatchObject({ event: 'ready', pid: p.pid });
    expect(ready.servers).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 'srv', state: 'ready', tools: 3 })]),
    );
    const pids = readPids(pidFile).server;
    expect(pids).toHaveLength(1);
    p.child.stdin!.end(); // stdin EOF stops the bridge too
    expect((await p.waitExit(10_000)).code).toBe(0);
    expect(p.lines()).toHaveLength(1); // one ready line, nothing else on stdout
    expect(await waitNoProcess(pids[0], 5000)).toBe(true);
  });

  it('convert reads the file and -n / --name picks the entry', async () => {
    const url = await remoteFixture('http');
    const { file } = writeConfig({
      local: pidServerEntry(join(tempDir(), 'pids.jsonl')),
      dead: { url: 'http://127.0.0.1:9/mcp' },
      live: { url, type: 'http' },
    });
    expect(
      await toolNames(new CliProcess(['convert', '--config-file', file, '-n', 'live', '--no-watchdog'])),
    ).toContain('echo');
    expect(
      await toolNames(new CliProcess(['convert', '--config-file', file, '--name', 'live', '--no-watchdog'])),
    ).toContain('whoami');

    const r1 = await runCli(['convert', '--config-file', file, '-n', 'nope']);
    expect(r1).toMatchObject({ code: 2, stdout: '' });
    expect(r1.stderr).toMatch(/no server "nope" in the config/);
    const r2 = await runCli(['convert', '--config-file', file, '-n', 'local']);
    expect(r2).toMatchObject({ code: 2, stdout: '' });
    expect(r2.stderr).toMatch(/server "local" is not a remote \(url\) server/);
    const r3 = await runCli(['convert', '--config-file', file]);
    expect(r3).toMatchObject({ code: 2, stdout: '' });
    expect(r3.stderr).toMatch(/the config has 2 remote servers: pick one with --name/);
  });
});

describe('--config-file written for another client, and bad entries', () => {
  it("reads VS Code's .vscode/mcp.json (comments, trailing commas, servers, inputs) and Cursor's ${env:NAME} as they are", async () => {
    const project = tempDir();
    mkdirSync(join(project, '.vscode'));
    const file = join(project, '.vscode', 'mcp.json');
    const pidServer = pidServerEntry('');
    writeFileSync(
      file,
      `// written by VS Code
      {
        "inputs": [{ "type": "promptString", "id": "api-key", "description": "API key", "password": true }],
        "servers": {
          /* the project's own server, its pids in the project folder */
          "vs": { "type": "stdio", "command": ${JSON.stringify(pidServer.command)}, "args": [${JSON.stringify(pidServer.args[0])}, "\${workspaceFolder}/vs.pids"],
                  "env": { "KEY": "\${input:api-key}" }, },
          "cursor": { "command": ${JSON.stringify(pidServer.command)}, "args": [${JSON.stringify(pidServer.args[0])}, "\${env:PIDS_DIR}\${/}cursor.pids"] },
        },
      }`,
    );
    const pidsDir = tempDir();
    const p = new CliProcess(['--config-file', file], {
      env: { ...process.env, MCP_INPUT_API_KEY: 'k-123', PIDS_DIR: pidsDir },
    });
    expect((await toolNames(p)).sort()).toEqual([
      'cursor__add',
      'cursor__echo',
      'cursor__secret_tool',
      'vs__add',
      'vs__echo',
      'vs__secret_tool',
    ]);
    // ${workspaceFolder} of a .vscode/mcp.json is the project; ${env:PIDS_DIR} the variable.
    expect(readPids(join(project, 'vs.pids')).server).toHaveLength(1);
    expect(readPids(join(pidsDir, 'cursor.pids')).server).toHaveLength(1);
  });

  it('stdio aggregation serves the valid entries and logs each bad one with its reason, never a value', async () => {
    const secret = 'sk-live-kept-out-of-logs-0123456789';
    const { dir, file } = writeConfig({
      good: pidServerEntry(join(tempDir(), 'pids.jsonl')),
      typo: { command: process.execPath, args: ['x', 42], env: { API_KEY: secret } },
    });
    const p = new CliProcess(['--config-file', file], { cwd: dir });
    expect(await toolNames(p)).toEqual(['good__echo', 'good__add', 'good__secret_tool']);
    expect(p.stderr).toContain('not started: server "typo": args[1] must be a string');
    expect(p.stderr).not.toContain(secret);
    expect(p.stderr).toContain('stdio aggregation of 1 server(s): good');
  });

  it('an input without its variable is named with the variable to set; a file that is not JSON is still fatal (exit 2)', async () => {
    const { file } = writeConfig({ vscode: { command: process.execPath, env: { KEY: '${input:api-key}' } } });
    const env = { ...process.env };
    delete env.MCP_INPUT_API_KEY;
    const p = new CliProcess(['--config-file', file], { env });
    expect(await toolNames(p)).toEqual([]);
    expect(p.stderr).toContain(
      'not started: server "vscode": env.KEY uses ${input:api-key}, which VS Code asks the user for; this runtime cannot ask: set MCP_INPUT_API_KEY to its value',
    );
    const dir = tempDir();
    const broken = join(dir, 'mcp.json');
    writeFileSync(broken, '{"mcpServers": {"a": {"command": "node"}');
    const r = await runCli(['--config-file', broken]);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toContain('is not valid JSON');
  });
});

describe('convert and bad entries', () => {
  it('refuses to run a bad entry it is asked for (exit 2, its problem named)', async () => {
    const { file } = writeConfig({ bad: { url: 'ftp://h/mcp' }, other: { url: 'http://127.0.0.1:9/mcp' } });
    const r = await runCli(['convert', '--config-file', file, '-n', 'bad']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toContain('server "bad": url must be an http or https URL (got scheme "ftp:")');
  });
});

describe('convert arguments', () => {
  it('--protocol stream and --protocol sse pick the transport', async () => {
    const httpUrl = await remoteFixture('http');
    const sseUrl = await remoteFixture('sse');
    const viaStream = new CliProcess([
      'convert',
      httpUrl,
      '--protocol',
      'stream',
      '--ping-interval',
      '0',
      '--no-watchdog',
      '--log-level',
      'debug',
    ]);
    expect(await toolNames(viaStream)).toContain('echo');
    expect(viaStream.stderr).toMatch(/\(streamable HTTP\) over stdio/);
    const viaSse = new CliProcess([
      'convert',
      sseUrl,
      '--protocol',
      'sse',
      '--ping-interval',
      '500',
      '--ping-timeout',
      '200',
      '--no-watchdog',
    ]);
    expect(await toolNames(viaSse)).toContain('echo');
    expect(viaSse.stderr).toMatch(/\(SSE\) over stdio/);
  });

  it('rejects a bad --protocol, --ping-interval or --ping-timeout with exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--protocol', 'websocket'], /option --protocol takes sse or stream, got "websocket"/],
      [['--protocol'], /option --protocol needs a value/],
      [['--ping-interval', 'abc'], /--ping-interval takes a non-negative whole number, got "abc"/],
      [['--ping-interval', '-5'], /--ping-interval takes a non-negative whole number, got "-5"/],
      [['--ping-interval', '99999999999'], /--ping-interval: 99999999999 is too large/],
      [['--ping-timeout', '0'], /--ping-timeout must be at least 1 ms/],
      [['--ping-timeout', '2.5'], /--ping-timeout takes a non-negative whole number, got "2.5"/],
      [['--name'], /option --name needs a value/],
      [['-H', 'no-colon'], /takes 'Name: value'/],
    ];
    for (const [extra, message] of cases) {
      const r = await runCli(['convert', 'http://127.0.0.1:9/mcp', ...extra]);
      expect(r.code, `${extra.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
    }
    const noUrl = await runCli(['convert']);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/convert needs a URL \(or --config with --name\)/);
    const notHttp = await runCli(['convert', 'ftp://example.com/mcp']);
    expect(notHttp.code).toBe(2);
    expect(notHttp.stderr).toMatch(/convert needs an http\(s\) URL/);
    // --protocol belongs to convert only.
    const stdio = await runCli(['--config', configJson({}), '--protocol', 'sse']);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toMatch(/option --protocol does not apply to stdio aggregation mode/);
  });
});
