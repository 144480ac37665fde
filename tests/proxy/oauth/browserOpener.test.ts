// The browser opener: only http(s) URLs are ever opened, on Windows without cmd (the URL is
// one argument of rundll32's, which no shell parses), and the opener's environment has none
// of the runtime's secrets (a real child dumps what it got).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openerCommand, openerEnv, systemOpener, withFallback } from '../../../src/proxy/oauth/browserOpener.js';
import { FIXTURES } from '../../helpers/paths.js';
import { memoryLogger } from './oauthKit.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
/** A recorder "browser" and the file it writes when it is run. */
function recorder(): { command: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'qiming-opener-'));
  dirs.push(dir);
  const file = join(dir, 'opened.json');
  return { command: `${process.execPath} ${join(FIXTURES, 'oauth', 'recordBrowser.mjs')} ${file}`, file };
}

/** http(s) URLs with every cmd metacharacter in path, query and fragment. */
const HOSTILE_WEB_URLS = [
  'https://auth.example.com/authorize|calc.exe&x=%PATH%',
  'https://auth.example.com/a^b&c<d>e"f',
  'https://auth.example.com/authorize?client_id=a&redirect_uri=%USERPROFILE%&x=^|calc.exe',
  'https://auth.example.com/authorize?x=1#"&start calc|^%COMSPEC%<>',
  'http://127.0.0.1:8080/authorize?q=%22%26calc%22',
];
const NOT_WEB_URLS = [
  'file:///etc/passwd',
  'file://attacker.example/share/payload.exe',
  'ms-msdt:/id PCWDiagnostic /skip force /param "IT_BrowseForFile=/../../calc.exe"',
  'smb://attacker.example/share',
  'search-ms:query=x&crumb=location:\\\\attacker.example\\share',
  'javascript:alert(1)',
  'C:\\Windows\\System32\\calc.exe',
  'not a url',
  'https://auth"example.com/',
];

describe('the opener command', () => {
  it('on Windows is rundll32 url.dll,FileProtocolHandler by full path with the URL as one argument, byte for byte, never cmd', () => {
    for (const raw of HOSTILE_WEB_URLS) {
      const url = new URL(raw).href;
      const { cmd, args } = openerCommand(raw, { SystemRoot: 'D:\\Win' }, 'win32');
      expect(cmd).toBe('D:\\Win\\System32\\rundll32.exe');
      expect(args).toEqual(['url.dll,FileProtocolHandler', url]);
      // No quote and no whitespace: Node passes it unquoted, and nothing in between expands
      // %VAR% or reads | & ^ < > (they reach ShellExecute as the browser gets them).
      expect(args[1]).not.toMatch(/["\s]/);
    }
    expect(openerCommand(HOSTILE_WEB_URLS[0], { SYSTEMROOT: 'C:\\Windows' }, 'win32').args[1]).toContain(
      '|calc.exe&x=%PATH%',
    );
    // A relative SystemRoot is no place to run anything from.
    expect(openerCommand(HOSTILE_WEB_URLS[0], { SystemRoot: 'Windows' }, 'win32').cmd).toBe(
      'C:\\Windows\\System32\\rundll32.exe',
    );
  });

  it('elsewhere is open / xdg-open / QIMING_OAUTH_BROWSER, the URL last and alone', () => {
    const url = new URL(HOSTILE_WEB_URLS[0]).href;
    expect(openerCommand(url, {}, 'darwin')).toEqual({ cmd: 'open', args: [url] });
    expect(openerCommand(url, {}, 'linux')).toEqual({ cmd: 'xdg-open', args: [url] });
    expect(openerCommand(url, { QIMING_OAUTH_BROWSER: 'firefox --new-window' }, 'win32')).toEqual({
      cmd: 'firefox',
      args: ['--new-window', url],
    });
  });

  it('refuses anything but an http(s) URL, on every platform and with a configured browser', () => {
    for (const raw of NOT_WEB_URLS)
      for (const [env, platform] of [
        [{}, 'win32'],
        [{}, 'darwin'],
        [{}, 'linux'],
        [{ QIMING_OAUTH_BROWSER: 'firefox' }, 'linux'],
      ] as const)
        expect(() => openerCommand(raw, env, platform), `${raw} on ${platform}`).toThrow(
          /is not opened: only http\(s\) URLs go to a browser/,
        );
  });
});

describe('the system opener', () => {
  it('runs nothing for a non-http(s) URL, and the fallback neither opens nor offers it', async () => {
    const rec = recorder();
    const { logger, lines } = memoryLogger();
    const env = { ...process.env, QIMING_OAUTH_BROWSER: rec.command };
    for (const raw of ['file:///etc/passwd', 'ms-msdt:/id PCWDiagnostic']) {
      expect(await systemOpener(logger, env)(raw)).toBe(false);
      expect(await withFallback(systemOpener(logger, env), logger, 'mcp.example.com')(raw)).toBe(false);
    }
    expect(existsSync(rec.file)).toBe(false);
    const log = lines.join('\n');
    expect(log).toMatch(
      /sign-in to mcp\.example\.com: a "file:" URL is not opened: only http\(s\) URLs go to a browser/,
    );
    expect(log).toMatch(/a "ms-msdt:" URL is not opened/);
    expect(log).not.toMatch(/\/etc\/passwd|PCWDiagnostic|open this URL/);
  });

  it('gives the opener our environment without the runtime secrets (a real child dumps what it got)', async () => {
    const rec = recorder();
    const { logger } = memoryLogger();
    const env = {
      ...process.env,
      QIMING_OAUTH_BROWSER: rec.command,
      MCP_BRIDGE_TOKEN: 'bridge-token-SECRET-123456',
      QIMING_OAUTH_KEY: 'oauth-key-SECRET',
      QIMING_SECRET_1: 'configured-SECRET-1',
      QIMING_SECRET_12: 'configured-SECRET-12',
      ELECTRON_RUN_AS_NODE: '1',
      DISPLAY: ':42',
      XDG_RUNTIME_DIR: '/run/user/4242',
    };
    const url = 'https://auth.example.com/authorize?client_id=a&state=b';
    expect(await systemOpener(logger, env)(url)).toBe(true);
    const got = JSON.parse(readFileSync(rec.file, 'utf8')) as { url: string; env: Record<string, string> };
    expect(got.url).toBe(url);
    for (const k of [
      'MCP_BRIDGE_TOKEN',
      'QIMING_OAUTH_KEY',
      'QIMING_SECRET_1',
      'QIMING_SECRET_12',
      'ELECTRON_RUN_AS_NODE',
    ])
      expect(got.env).not.toHaveProperty(k);
    expect(JSON.stringify(got.env)).not.toMatch(/SECRET/);
    // What a browser needs stays.
    expect(got.env).toMatchObject({ DISPLAY: ':42', XDG_RUNTIME_DIR: '/run/user/4242', PATH: process.env.PATH });
  });

  it('matches Windows names in any case', () => {
    const out = openerEnv(
      {
        mcp_bridge_token: 'a',
        Qiming_Oauth_Key: 'b',
        qiming_secret_3: 'c',
        Electron_Run_As_Node: '1',
        Path: 'C:\\bin',
      },
      'win32',
    );
    expect(out).toEqual({ Path: 'C:\\bin' });
    // POSIX names are case-sensitive: another variable, kept.
    expect(openerEnv({ mcp_bridge_token: 'a', MCP_BRIDGE_TOKEN: 'b' }, 'linux')).toEqual({ mcp_bridge_token: 'a' });
  });
});
