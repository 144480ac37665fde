// The headless first run: `proxy` without --config runs the app's first-run config (the
// bundled memory and filesystem servers) from mcp.json in the user's data folder, written
// once, 0600, with the servers' data beside it; from the dev tree layout (dist/proxy beside
// dist/servers) as `npm run bridge` starts it. SIGHUP then applies the user's edits to it.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultMcpConfig } from '../../../src/main/config/defaultMcpConfig.js';
import { userDataDir } from '../../../src/proxy/cli/defaultBridgeConfig.js';
import {
  CLI,
  cleanupBridges,
  fixture,
  nodeEntry,
  startBridge,
  tempDir,
  waitFor,
  waitNotRunning,
} from '../../helpers/bridgeProcess.js';

afterEach(cleanupBridges);

function text(result: unknown): string {
  return ((result as { content: { type: string; text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');
}

describe('headless bridge without --config', () => {
  it("runs the app's default config from the user's data folder, and SIGHUP applies edits to it", async () => {
    const home = tempDir();
    const xdg = join(home, 'xdg');
    // The dev tree's CLI: the bundled servers are found beside it, in dist/servers.
    const env = {
      HOME: home,
      XDG_CONFIG_HOME: xdg,
      APPDATA: join(home, 'appdata'),
      QIMING_SERVERS_DIR: undefined,
      QIMING_DATA_DIR: undefined,
      QIMING_FILES_DIR: undefined,
      QIMING_NODE: undefined,
    };
    const b = await startBridge({ config: undefined, cli: CLI, env });
    const userData = userDataDir(process.platform, { XDG_CONFIG_HOME: xdg, APPDATA: env.APPDATA }, home);
    const file = join(userData, 'mcp.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(defaultMcpConfig());
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(b.ready!.servers.map((s) => [s.id, s.state])).toEqual([
      ['memory', 'ready'],
      ['filesystem', 'ready'],
    ]);
    expect(b.stderr).toMatch(/status panel: http:\/\/127\.0\.0\.1:\d+\/#token=/);
    expect(b.stderr).toContain(`no --config given: using ${file}`);

    // The servers' data lands under the user's data folder.
    const { client } = await b.client('/mcp');
    await client.callTool({
      name: 'memory__create_entities',
      arguments: { entities: [{ name: 'headless', entityType: 'test', observations: ['first run'] }] },
    });
    expect(readFileSync(join(userData, 'mcp', 'memory.jsonl'), 'utf8')).toContain('headless');
    expect(text(await client.callTool({ name: 'filesystem__list_allowed_directories', arguments: {} }))).toContain(
      join(userData, 'mcp', 'files'),
    );

    // The file is the user's: an edit (filesystem removed) applies on SIGHUP; memory stays.
    const before = await b.status();
    const memoryPid = before.servers[0].pid;
    const fsPid = before.servers[1].pid!;
    const edited = defaultMcpConfig();
    delete edited.mcpServers.filesystem;
    writeFileSync(file, JSON.stringify(edited));
    b.child.kill('SIGHUP');
    await waitFor(async () => (await b.status()).servers.length === 1, 15_000, 'filesystem removed');
    expect(await waitNotRunning(fsPid, 5000)).toBe(true);
    expect((await b.status()).servers[0].pid).toBe(memoryPid);

    // A second start keeps the user's file as it is.
    const again = await startBridge({ config: undefined, cli: CLI, env });
    expect(again.ready!.servers.map((s) => s.id)).toEqual(['memory']);
    expect(existsSync(file)).toBe(true);
  });
});

describe('headless bridge with a bad entry in the user file', () => {
  it('starts, with the bad entry failed and its reason shown, so the panel can fix it', async () => {
    const home = tempDir();
    const xdg = join(home, 'xdg');
    const userData = userDataDir(process.platform, { XDG_CONFIG_HOME: xdg, APPDATA: join(home, 'appdata') }, home);
    mkdirSync(userData, { recursive: true });
    const file = join(userData, 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          mine: nodeEntry(fixture('pidServer.mjs'), [join(home, 'pids')]),
          typo: { command: 'npx', args: ['-y', 7] },
        },
      }),
    );
    const b = await startBridge({
      config: undefined,
      cli: CLI,
      env: { HOME: home, XDG_CONFIG_HOME: xdg, APPDATA: join(home, 'appdata') },
    });
    expect(b.ready!.servers.map((s) => [s.id, s.state, s.error])).toEqual([
      ['mine', 'ready', undefined],
      ['typo', 'failed', 'invalid config entry: args[1] must be a string'],
    ]);
    expect((await b.fetch('/config')).status).toBe(200);
  });
});
