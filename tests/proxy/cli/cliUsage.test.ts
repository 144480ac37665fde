// Command-line errors of the built CLI: every bad argument or config gets a message on
// stderr and exit code 2, nothing on stdout, and no stack trace; --help and --version exit 0.
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cleanup, configJson, runCli, tempDir } from '../../helpers/cliProcess.js';

afterEach(cleanup);

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const EMPTY = configJson({});

/** Runs the CLI expecting a usage/config error; returns its stderr. */
async function expectExit2(args: string[], message: RegExp): Promise<string> {
  const r = await runCli(args);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/^\s+at /m); // no stack trace
  expect(r.code).toBe(2);
  return r.stderr;
}

describe('CLI usage', () => {
  it('rejects an unknown option or mode with the usage on stderr and exit 2', async () => {
    const a = await expectExit2(['--bogus', '--config', EMPTY], /unknown option --bogus/);
    expect(a).toMatch(/Usage:\n\s+qiming-mcp-stdio-proxy --config/);
    const b = await expectExit2(['serve', '--config', EMPTY], /unknown mode "serve"/);
    expect(b).toMatch(/Usage:/);
    await expectExit2(['--config', EMPTY, 'extra'], /unexpected argument "extra"/);
    await expectExit2([], /needs --config <json\|path> or --config-file <path>/);
  });

  it('prints the usage for --help / -h and the version for --version / -v, exit 0, stdout untouched', async () => {
    for (const flag of ['--help', '-h']) {
      const r = await runCli([flag]);
      expect(r).toMatchObject({ code: 0, stdout: '' });
      expect(r.stderr).toMatch(/Usage:/);
      expect(r.stderr).toMatch(/convert <url>/);
      expect(r.stderr).toMatch(/proxy --port/);
    }
    for (const flag of ['--version', '-v']) {
      const r = await runCli([flag]);
      expect(r).toEqual({ code: 0, stdout: '', stderr: `${VERSION}\n` });
    }
    // --help wins even after other options (and a config that would not load).
    expect((await runCli(['--config', '/nope.json', '--help'])).code).toBe(0);
  });

  it('validates numbers', async () => {
    await expectExit2(
      ['--config', EMPTY, '--idle-timeout', 'abc'],
      /--idle-timeout takes a non-negative whole number, got "abc"/,
    );
    await expectExit2(
      ['--config', EMPTY, '--idle-timeout', '-1'],
      /--idle-timeout takes a non-negative whole number, got "-1"/,
    );
    await expectExit2(['--config', EMPTY, '--idle-timeout', '1e3'], /--idle-timeout takes a non-negative whole number/);
    // Beyond 2^31-1 ms a Node timer fires after 1 ms instead: that would exit at once.
    await expectExit2(
      ['--config', EMPTY, '--idle-timeout', '99999999999'],
      /--idle-timeout: 99999999999 is too large \(at most 2147483647\)/,
    );
    await expectExit2(['--config', EMPTY, '--watchdog-interval', '0'], /--watchdog-interval must be at least 1 ms/);
    await expectExit2(['--config', EMPTY, '--parent-pid', '0'], /--parent-pid must be a process id/);
    await expectExit2(['--config', EMPTY, '--max-message-bytes', '0'], /--max-message-bytes must be at least 1/);
    await expectExit2(
      ['--config', EMPTY, '--ready-timeout', '5s'],
      /--ready-timeout takes a non-negative whole number, got "5s"/,
    );
    await expectExit2(['proxy', '--config', EMPTY, '--port', '70000'], /--port must be 0\.\.65535/);
    await expectExit2(['--config', EMPTY, '--log-level', 'loud'], /--log-level takes debug, info, warn or error/);
  });

  it('says which option lacks its value', async () => {
    await expectExit2(['--config'], /option --config needs a value/);
    await expectExit2(['--config', '--idle-timeout', '5'], /option --config needs a value/);
    await expectExit2(['--config', EMPTY, '--idle-timeout'], /option --idle-timeout needs a value/);
  });

  it('refuses a value given to a flag that takes none (it used to be ignored: =false turned the flag on)', async () => {
    await expectExit2(['--config', EMPTY, '--no-watchdog=false'], /option --no-watchdog takes no value, got "false"/);
    await expectExit2(
      ['proxy', '--port', '0', '--config', EMPTY, '--dangerously-allow-non-loopback=false'],
      /option --dangerously-allow-non-loopback takes no value, got "false"/,
    );
  });

  it('rejects options of another mode', async () => {
    await expectExit2(['--config', EMPTY, '--name', 'x'], /option --name does not apply to stdio aggregation mode/);
    await expectExit2(
      ['proxy', '--port', '0', '--config', EMPTY, '--allow-tools', 'a'],
      /option --allow-tools does not apply to proxy mode/,
    );
    await expectExit2(['--config', EMPTY, '--port', '8080'], /--port applies only with --transport http/);
    await expectExit2(
      ['--config', EMPTY, '--token-file', '/tmp/t', '--host', 'localhost'],
      /--token-file, --host apply only with --transport http/,
    );
    await expectExit2(['--config', EMPTY, '--transport', 'sse'], /--transport sse is not valid here/);
  });

  it('refuses --config together with --config-file', async () => {
    const file = join(tempDir(), 'c.json');
    writeFileSync(file, EMPTY);
    await expectExit2(['--config', EMPTY, '--config-file', file], /give either --config or --config-file, not both/);
    await expectExit2(
      ['convert', '--config', EMPTY, '--config-file', file, '-n', 'x'],
      /give either --config or --config-file, not both/,
    );
  });
});

describe('CLI config errors', () => {
  it('a bad top level exits 2 listing every problem, naming the server and the field, never a secret', async () => {
    const secret = 's3cr3t-value-that-must-not-leak';
    const config = JSON.stringify({
      toolNaming: 'short',
      mcpServers: {
        'bad/id': { command: 'node' },
        nocmd: { args: ['x'], env: { TOKEN: secret } },
        badenv: { command: 'node', env: { PORT: 5, TOKEN: secret } },
        badremote: { url: 'not a url', headers: { Authorization: `Bearer ${secret}` } },
      },
    });
    const err = await expectExit2(['--config', config], /invalid MCP config/);
    expect(err).toMatch(/toolNaming must be one of "prefixed", "original"/);
    expect(err).toMatch(/server "bad\/id": has an invalid id/);
    expect(err).toMatch(/server "nocmd": needs either command \(a stdio server\) or url \(a remote server\)/);
    expect(err).toMatch(/server "badenv": env\.PORT must be a string/);
    expect(err).toMatch(/server "badremote": url is not a valid absolute URL/);
    expect(err).not.toContain(secret);
    expect(err).not.toMatch(/Usage:/); // a config problem is not a usage problem
  });

  it('names the file of an invalid config file, and says plainly when it is missing', async () => {
    const dir = tempDir();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"mcpServers": {"a": {"command" "node"}}}');
    await expectExit2(
      ['--config', bad],
      new RegExp(
        `invalid MCP config: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON: syntax error at line 1`,
      ),
    );
    const missing = join(dir, 'missing.json');
    for (const flag of ['--config', '--config-file']) {
      const err = await expectExit2([flag, missing], /config file not found/);
      expect(err.trim()).toBe(`qiming-mcp-stdio-proxy: config file not found: ${missing}`);
    }
    await expectExit2(['--config-file', dir], /config path is a directory, not a file/);
    await expectExit2(['proxy', '--port', '0', '--config-file', missing], /config file not found/);
    await expectExit2(['convert', '--config-file', missing, '-n', 'x'], /config file not found/);
  });
});
