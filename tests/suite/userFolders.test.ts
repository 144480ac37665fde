// The suite never reaches the real user's data: every test, and every process a test starts,
// runs with the home tests/globalSetup.ts made for the run (HOME, the XDG folders, APPDATA);
// and the guard the run ends with names what would appear in a user's data folders
// (helpers/userFolders.ts), shown here on a stand-in user's home. Real child processes, real
// files in temp folders.
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { changes, HOME_VARS, snapshot, SUITE_HOME_ENV, userDataFolders } from '../helpers/userFolders.js';
import { pinFolder } from '../../src/proxy/pinning/pinFolder.js';
import { userDataDir } from '../../src/proxy/cli/defaultBridgeConfig.js';
import { defaultOAuthDir } from '../../src/proxy/oauth/oauthStore.js';

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

const suiteHome = () => process.env[SUITE_HOME_ENV]!;
const inSuiteHome = (p: string) => p === suiteHome() || p.startsWith(`${suiteHome()}${sep}`);

describe("the suite's own home", () => {
  it('is where every home variable of a test leads, and os.homedir() with them', () => {
    expect(suiteHome()).toMatch(/qiming-home-/);
    for (const v of HOME_VARS) expect(process.env[v], v).toSatisfy(inSuiteHome);
    expect(homedir()).toBe(suiteHome());
  });

  it("is where the runtime's own default folders lead: pins, the dev tree's data, sign-in records", () => {
    const env = { ...process.env };
    delete env.QIMING_PINS_DIR;
    delete env.QIMING_DATA_DIR;
    delete env.QIMING_OAUTH_DIR;
    expect(pinFolder(env)).toSatisfy(inSuiteHome);
    expect(userDataDir(process.platform, env)).toSatisfy(inSuiteHome);
    expect(defaultOAuthDir(env)).toSatisfy(inSuiteHome);
  });

  it('is the home of a process started with the environment an MCP client gives its server', () => {
    // The SDK's stdio client passes on HOME, PATH, USER and a few more, not the XDG folders.
    const script =
      'process.stdout.write(JSON.stringify([require("os").homedir(), process.env.XDG_CONFIG_HOME ?? null]))';
    const [home, xdg] = JSON.parse(
      execFileSync(process.execPath, ['-e', script], { env: getDefaultEnvironment(), encoding: 'utf8' }),
    ) as [string, string | null];
    expect(home).toBe(suiteHome());
    expect(xdg).toBeNull();
  });
});

describe("the guard on the real user's data folders", () => {
  /** A stand-in user: a home with the folders a desktop session has, and some data in them. */
  function standInUser() {
    const home = mkdtempSync(join(tmpdir(), 'qiming-user-'));
    temps.push(home);
    mkdirSync(join(home, '.config', 'qiming-mcp-runtime', 'mcp', 'pins'), { recursive: true });
    writeFileSync(join(home, '.config', 'qiming-mcp-runtime', 'mcp', 'pins', 'memory.json'), '{}');
    mkdirSync(join(home, '.config', 'editor'), { recursive: true });
    writeFileSync(join(home, '.config', 'editor', 'settings.json'), '{}');
    mkdirSync(join(home, '.local', 'share'), { recursive: true });
    mkdirSync(join(home, '.claude'), { recursive: true });
    return { home, folders: userDataFolders([home], {}, 'linux') };
  }

  it('names a pin file, an agent folder and a data folder written into them, and one taken away', () => {
    const { home, folders } = standInUser();
    const before = snapshot(folders);
    const pins = join(home, '.config', 'qiming-mcp-runtime', 'mcp', 'pins');
    writeFileSync(join(pins, `launch.${'0'.repeat(64)}.json`), '{}');
    rmSync(join(pins, 'memory.json'));
    writeFileSync(join(home, '.claude.json'), '{}');
    mkdirSync(join(home, '.local', 'share', 'opencode'));
    mkdirSync(join(home, '.config', 'qiming-mcp', 'oauth'), { recursive: true });
    expect(changes(before, snapshot(folders))).toEqual(
      [
        `gone: ${join(pins, 'memory.json')}`,
        `new: ${join(home, '.claude.json')}`,
        `new: ${join(home, '.config', 'qiming-mcp')}`,
        `new: ${join(home, '.config', 'qiming-mcp', 'oauth')}`,
        `new: ${join(home, '.local', 'share', 'opencode')}`,
        `new: ${join(pins, `launch.${'0'.repeat(64)}.json`)}`,
      ].sort(),
    );
  });

  it("leaves out a file the user's own programs change in place, and what is inside their folders", () => {
    const { home, folders } = standInUser();
    const before = snapshot(folders);
    writeFileSync(join(home, '.config', 'editor', 'settings.json'), '{"changed": true}');
    mkdirSync(join(home, '.claude', 'projects'));
    expect(changes(before, snapshot(folders))).toEqual([]);
  });
});
