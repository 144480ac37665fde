// Once before any test runs: builds everything (the CLI tests spawn the bundled
// dist/proxy/qiming-mcp-stdio-proxy.cjs, never the TypeScript sources, so they prove the file
// that ships) and finds the Chromium the browser tests use (helpers/chromiumPath.ts), which the
// test workers inherit through the environment.
//
// The run has a home of its own: HOME, USERPROFILE, the XDG folders, APPDATA and LOCALAPPDATA
// point into a temp folder for every test and every process a test starts (an agent's
// `~/.claude`, a proxy's default pins folder, a server's data), removed at the end. Before the
// switch it notes the real user's data folders, and after the last test it fails the run
// naming whatever appeared in or went from them (helpers/userFolders.ts). npm keeps the user's
// own cache and config (`npm_config_cache`, `npm_config_userconfig`): the packaging test
// installs from that cache, through the registry that config names.
//
// Tool pinning is off for every test that does not turn it on, and its pins go to a folder of
// this run. The user's own Secret Service is out of reach (a session bus address that leads
// nowhere): a test that needs a keychain starts its own (helpers/secretService.ts), and every
// other one sees none. The registry of running server groups (process/orphanSweep.ts) is a
// folder of this run too.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { RESOLVED_ENV, resolveChromium } from './helpers/chromiumPath.js';
import { changes, HOME_VARS, snapshot, SUITE_HOME_ENV, suiteHomeEnv, userDataFolders } from './helpers/userFolders.js';

export default async function setup(): Promise<() => void> {
  const root = join(import.meta.dirname, '..');
  // The real user's homes: the one HOME names, and the account's, which a process whose
  // environment lacks HOME falls back to.
  const homes = [...new Set([homedir(), userInfo().homedir])];
  const folders = userDataFolders(homes, process.env);
  const before = snapshot(folders);
  process.env.npm_config_cache ??= process.env.NPM_CONFIG_CACHE ?? npmCache(homedir());
  process.env.npm_config_userconfig ??= process.env.NPM_CONFIG_USERCONFIG ?? join(homedir(), '.npmrc');
  const home = mkdtempSync(join(tmpdir(), 'qiming-home-'));
  const homeEnv = suiteHomeEnv(home);
  for (const v of HOME_VARS) {
    mkdirSync(homeEnv[v], { recursive: true });
    process.env[v] = homeEnv[v];
  }
  process.env[SUITE_HOME_ENV] = home;
  const pins = mkdtempSync(join(tmpdir(), 'qiming-pins-'));
  process.env.QIMING_PINS_DIR = pins;
  process.env.QIMING_PINNING = 'off';
  const runtime = mkdtempSync(join(tmpdir(), 'qiming-runtime-'));
  process.env.QIMING_MCP_RUNTIME_DIR = join(runtime, 'registry');
  process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/qiming-tests-have-no-session-bus';
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  try {
    const { path, source } = await resolveChromium();
    process.env[RESOLVED_ENV] = path;
    process.stderr.write(`browser tests use Chromium at ${path} (${source})\n`);
  } catch (err) {
    // Only the browser tests need it; they fail with this reason when they look again.
    process.stderr.write(`no Chromium for the browser tests: ${(err as Error).message}\n`);
  }
  return () => {
    rmSync(pins, { recursive: true, force: true });
    rmSync(runtime, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    const written = changes(before, snapshot(folders));
    if (written.length === 0) return;
    // vitest prints an error of the teardown but keeps the run's exit code: the code is set here.
    process.exitCode = 1;
    throw new Error(
      `the test run wrote to the real user's data folders (a test or a process it started used the user's HOME, XDG or APPDATA instead of the suite's, tests/globalSetup.ts; or another program of the user's did meanwhile):\n${written.slice(0, 50).join('\n')}`,
    );
  };
}

/** npm's own default cache folder for a user whose home is `home`. */
function npmCache(home: string): string {
  return process.platform === 'win32' && process.env.LOCALAPPDATA
    ? join(process.env.LOCALAPPDATA, 'npm-cache')
    : join(home, '.npm');
}
