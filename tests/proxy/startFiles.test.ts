// What each start of the real built CLI reads and compiles: the files beside it
// (dist/proxy/*.cjs, scripts/buildProxy.mjs) that a process loaded by the time it exits, for
// `--version`, stdio aggregation, the bridge (`proxy`), a `bridge` entry (the app's path) and
// convert; the first use of the OAuth flow and of the panel's management routes loads their
// file and works. The bytes each start loads stay within a budget, so that code only some
// starts need does not grow the start of the others.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CLI, connectProxy, ensureBuilt, fixtureEntry, startHttpFixture, waitFor } from '../helpers/proxyCli.js';
import { FIXTURES } from '../helpers/paths.js';
import { builtCli, cleanupBridges, startBridge } from '../helpers/bridgeProcess.js';

const PRELOAD = join(FIXTURES, 'loadedFiles.cjs');
const KB = 1024;
/**
 * Bytes of the CLI's files a start may load, with a little room. The 2026-07-28 code (held
 * calls, tasks across eras, subscriptions, log levels) is in the core file every start loads;
 * taking it off the 2025 start paths (first use, like the OAuth flow) would lower the app's
 * and the stdio budgets: docs/BENCHMARKS.md, "Start-up".
 */
const BUDGET = { version: 48 * KB, app: 384 * KB, stdio: 440 * KB, bridge: 512 * KB };

let dir = '';
const env = () => ({ NODE_OPTIONS: `--require ${PRELOAD}`, QIMING_TEST_LOADED_DIR: dir });
const bytesOf = (cli: string, files: string[]) => files.reduce((n, f) => n + statSync(join(dirname(cli), f)).size, 0);

/** What process `pid` loaded, written by the preload when it exited: our files, and Node's own modules. */
async function loaded(pid: number): Promise<{ files: string[]; builtins: string[] }> {
  const file = join(dir, `${pid}.json`);
  await waitFor(() => existsSync(file), 10_000, `the file list of pid ${pid}`);
  return JSON.parse(readFileSync(file, 'utf8')) as { files: string[]; builtins: string[] };
}
const loadedBy = async (pid: number) => (await loaded(pid)).files;

beforeAll(() => ensureBuilt());

afterEach(async () => {
  await cleanupBridges();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the files each start of the CLI loads', () => {
  it('--version loads the command line file alone', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qiming-loaded-'));
    const run = spawnSync(process.execPath, ['--require', PRELOAD, CLI, '--version'], {
      env: { ...process.env, QIMING_TEST_LOADED_DIR: dir },
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(run.status).toBe(0);
    expect(run.stderr.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const files = await loadedBy(run.pid);
    expect(files).toEqual(['qiming-mcp-stdio-proxy.cjs']);
    expect(bytesOf(CLI, files)).toBeLessThanOrEqual(BUDGET.version);
  });

  it('stdio aggregation of stdio servers loads the core and the process code, and nothing of the bridge, convert, OAuth or the panel', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qiming-loaded-'));
    const proxy = await connectProxy(['--config', JSON.stringify({ mcpServers: { a: fixtureEntry('a') } })], {}, env());
    const pid = proxy.transport.pid!;
    expect((await proxy.client.listTools()).tools.map((t) => t.name)).toContain('a__echo');
    await proxy.close();
    const { files, builtins } = await loaded(pid);
    expect(files).toEqual(['qiming-mcp-core.cjs', 'qiming-mcp-process.cjs', 'qiming-mcp-stdio-proxy.cjs']);
    // node:crypto is taken where first needed (about 2 ms of Node's own modules at every start otherwise).
    expect(builtins).not.toContain('crypto');
    expect(bytesOf(CLI, files)).toBeLessThanOrEqual(BUDGET.stdio);
  });

  it('the bridge loads its own file beside the core; a `bridge` entry (the app path) only the core; the panel routes load theirs on first use', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qiming-loaded-'));
    const bridge = await startBridge({ config: { mcpServers: { a: fixtureEntry('a') } }, env: env() });
    const entry = { type: 'bridge', url: `${bridge.url}/mcp/a`, headers: { Authorization: `Bearer ${bridge.token}` } };
    const proxy = await connectProxy(['--config', JSON.stringify({ mcpServers: { a: entry } })], {}, env());
    const pid = proxy.transport.pid!;
    expect((await proxy.client.listTools()).tools.map((t) => t.name)).toContain('a__echo');
    await proxy.close();
    const { files: appFiles, builtins } = await loaded(pid);
    expect(appFiles).toEqual(['qiming-mcp-core.cjs', 'qiming-mcp-stdio-proxy.cjs']);
    expect(builtins).not.toContain('crypto');
    expect(bytesOf(CLI, appFiles)).toBeLessThanOrEqual(BUDGET.app);
    // First use of the management routes: inline JSON has no file to edit, which the route says.
    const res = await bridge.fetch('/config');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: false, editable: false });
    bridge.child.kill('SIGTERM');
    await bridge.waitExit(10_000);
    const files = await loadedBy(bridge.pid);
    expect(files).toEqual([
      'qiming-mcp-bridge.cjs',
      'qiming-mcp-config-edit.cjs',
      'qiming-mcp-core.cjs',
      'qiming-mcp-process.cjs',
      'qiming-mcp-stdio-proxy.cjs',
    ]);
    const cli = builtCli();
    expect(
      bytesOf(
        cli,
        files.filter((f) => f !== 'qiming-mcp-config-edit.cjs'),
      ),
    ).toBeLessThanOrEqual(BUDGET.bridge);
  });

  it('a streamable HTTP entry that may sign in loads the HTTP client and the OAuth flow; convert loads its own file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qiming-loaded-'));
    const remote = await startHttpFixture('http', { name: 'r' });
    try {
      const proxy = await connectProxy(['--config', JSON.stringify({ mcpServers: { r: { type: 'http', url: remote.url } } })], {}, env());
      const pid = proxy.transport.pid!;
      expect((await proxy.client.listTools()).tools.map((t) => t.name)).toContain('r__echo');
      await proxy.close();
      expect(await loadedBy(pid)).toEqual(['qiming-mcp-core.cjs', 'qiming-mcp-http-client.cjs', 'qiming-mcp-oauth.cjs', 'qiming-mcp-stdio-proxy.cjs']);

      const convert = await connectProxy(['convert', remote.url, '--header', 'Authorization: Bearer x'], {}, env());
      const convertPid = convert.transport.pid!;
      expect((await convert.client.listTools()).tools.map((t) => t.name)).toContain('echo');
      await convert.close();
      const files = await loadedBy(convertPid);
      expect(files).toEqual(['qiming-mcp-convert.cjs', 'qiming-mcp-core.cjs', 'qiming-mcp-http-client.cjs', 'qiming-mcp-stdio-proxy.cjs']);
      expect(bytesOf(CLI, files)).toBeLessThanOrEqual(BUDGET.stdio);
    } finally {
      await remote.stop();
    }
  });
});
