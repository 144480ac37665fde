// The app's one read of the login-shell PATH (loginEnv.ts) with a real bash and a temp HOME:
// PATH extended and QIMING_LOGIN_PATH set in the environment it hands down, no second read
// when it is set already, and acp.ts passing it to the agents' stdio proxies.
import { chmodSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerStdio } from '@agentclientprotocol/sdk';
import { adoptLoginPath } from '../../src/main/runtime/loginEnv.js';
import { acpMcpServers } from '../../src/main/acp/acp.js';
import { tempDir } from '../helpers/proxyCli.js';

const dirs: { remove: () => void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

const quiet = () => {
  const lines: string[] = [];
  return {
    lines,
    logger: { info: (m: string) => lines.push(`info ${m}`), warn: (m: string) => lines.push(`warn ${m}`) },
  };
};

describe('adoptLoginPath', () => {
  it('reads the login shell once and hands its folders down through the environment', async () => {
    const d = tempDir('qiming-app-login-');
    dirs.push(d);
    const tools = join(d.path, 'tools');
    mkdirSync(tools);
    writeFileSync(join(d.path, '.bash_profile'), `echo read >> "${d.path}/reads"\nexport PATH="${tools}:$PATH"\n`);
    const env: NodeJS.ProcessEnv = { HOME: d.path, PATH: '/usr/bin:/bin', SHELL: '/bin/bash' };
    const { lines, logger } = quiet();
    await adoptLoginPath(env, logger);
    expect(env.QIMING_LOGIN_PATH?.split(':')).toContain(tools);
    expect(env.PATH!.startsWith('/usr/bin:/bin:')).toBe(true);
    expect(env.PATH!.split(':')).toContain(tools);
    expect(lines).toEqual([expect.stringMatching(/^info login shell \/bin\/bash read in \d+ ms$/)]);
    // Set already (a second start, or handed by whoever started the app): no second read.
    await adoptLoginPath(env, logger);
    expect(readFileSync(join(d.path, 'reads'), 'utf8')).toBe('read\n');
  });

  it('a shell that cannot run: the fallback folders, with a warning', async () => {
    const d = tempDir('qiming-app-login-');
    dirs.push(d);
    mkdirSync(join(d.path, '.bun', 'bin'), { recursive: true });
    const shell = join(d.path, 'zsh');
    writeFileSync(shell, '#!/bin/sh\nexit 3\n');
    chmodSync(shell, 0o755);
    const env: NodeJS.ProcessEnv = { HOME: d.path, PATH: '/usr/bin:/bin', SHELL: shell };
    const { lines, logger } = quiet();
    await adoptLoginPath(env, logger);
    expect(env.QIMING_LOGIN_PATH).toContain(join(d.path, '.bun', 'bin'));
    expect(lines[0]).toMatch(
      /^warn cannot read the login shell's PATH \(.*zsh: exited with code 3 without printing PATH\); using well-known tool folders: ~\/.bun\/bin/,
    );
    expect(existsSync(join(d.path, '.bun', 'bin'))).toBe(true);
  });
});

describe("the agents' stdio proxies get the folders", () => {
  it('acpMcpServers passes QIMING_LOGIN_PATH when the app has it', () => {
    const before = process.env.QIMING_LOGIN_PATH;
    process.env.QIMING_LOGIN_PATH = '/home/ann/.nvm/versions/node/v22.1.0/bin:/opt/homebrew/bin';
    try {
      const e = acpMcpServers(undefined, {
        bridge: { url: 'http://127.0.0.1:4567', token: 'tok-0123456789abcdef' },
        bridgeIds: ['memory'],
        cliPath: '/app/proxy.cjs',
        node: { command: '/usr/bin/node', env: {}, electron: false },
        logFile: '/logs/p.log',
      })[0] as McpServerStdio;
      expect(e.env).toContainEqual({ name: 'QIMING_LOGIN_PATH', value: process.env.QIMING_LOGIN_PATH });
    } finally {
      if (before === undefined) delete process.env.QIMING_LOGIN_PATH;
      else process.env.QIMING_LOGIN_PATH = before;
    }
  });
});
