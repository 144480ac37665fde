// What each start of the real built CLI reads and compiles: the files beside it
// (dist/proxy/*.cjs, scripts/buildProxy.mjs) that a process loaded by the time it exits, for
// `--version`, stdio aggregation, the bridge (`proxy`), a `bridge` entry (the app's path) and
// convert; the first use of the OAuth flow, of the panel's management routes and of an
// aggregate's meta-tools and tool search loads their file and works. The bytes each start loads stay within a budget, so that code only some
// starts need does not grow the start of the others.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CLI, connectProxy, ensureBuilt, fixtureEntry, startHttpFixture, waitFor } from '../helpers/proxyCli.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';
import { builtCli, cleanupBridges, startBridge } from '../helpers/bridgeProcess.js';

const PRELOAD = join(FIXTURES, 'loadedFiles.cjs');
const KB = 1024;
/**
 * Bytes of the CLI's files each start may load: the table "Start-up byte budgets" in
 * docs/BENCHMARKS.md, so a raised budget is a change to that table with its measured reason.
 * The budgets are a ratchet: a start that loads more fails, and so does a budget more than
 * RATCHET_SLACK above what its start loads (lower it to what is measured).
 */
const BUDGET = startBudgets();
const RATCHET_SLACK = 16 * KB;
const measured = new Map<keyof typeof BUDGET, number>();

function startBudgets(): Record<'version' | 'stdio' | 'app' | 'bridge', number> {
  const text = readFileSync(join(ROOT, 'docs', 'BENCHMARKS.md'), 'utf8');
  const section = text.slice(text.indexOf('## Start-up byte budgets'));
  const out: Record<string, number> = {};
  for (const m of section.matchAll(/^\| `(version|stdio|app|bridge)` \| ([\d,]+) \|/gm))
    out[m[1]!] ??= Number(m[2]!.replace(/,/g, ''));
  for (const k of ['version', 'stdio', 'app', 'bridge'])
    if (!out[k]) throw new Error(`docs/BENCHMARKS.md, "Start-up byte budgets": no row for \`${k}\``);
  return out as Record<'version' | 'stdio' | 'app' | 'bridge', number>;
}

/** Checks `bytes` against the budget of `start`, and keeps the largest measured for the ratchet. */
function withinBudget(start: keyof typeof BUDGET, bytes: number): void {
  expect(bytes, `${start} start: ${bytes} bytes loaded, over its budget of ${BUDGET[start]}`).toBeLessThanOrEqual(
    BUDGET[start],
  );
  measured.set(start, Math.max(measured.get(start) ?? 0, bytes));
}

let dir = '';
// Each start as a user gets it: tool pinning at its default (the suite turns it off elsewhere).
const env = () => ({ NODE_OPTIONS: `--require ${PRELOAD}`, QIMING_TEST_LOADED_DIR: dir, QIMING_PINNING: '' });
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
    withinBudget('version', bytesOf(CLI, files));
  });

  it('stdio aggregation of stdio servers loads the core and the process code, and nothing of the bridge, convert, OAuth or the panel', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qiming-loaded-'));
    const proxy = await connectProxy(['--config', JSON.stringify({ mcpServers: { a: fixtureEntry('a') } })], {}, env());
    const pid = proxy.transport.pid!;
    expect((await proxy.client.listTools()).tools.map((t) => t.name)).toContain('a__echo');
    await proxy.close();
    const { files, builtins } = await loaded(pid);
    expect(files).toEqual([
      'qiming-mcp-core.cjs',
      'qiming-mcp-pinning.cjs',
      'qiming-mcp-process.cjs',
      'qiming-mcp-stdio-proxy.cjs',
    ]);
    // Pinning checks the first list with its own file, hashing with node:crypto (about 2 ms of
    // Node's own modules); a start without pinning (the app's path, below) loads neither.
    expect(builtins).toContain('crypto');
    withinBudget('stdio', bytesOf(CLI, files));
  });

  it('an aggregate that lists by search loads the meta-tools file with its first list, and tool search only with its first search', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qiming-loaded-'));
    const config = { toolExposure: 'search', mcpServers: { a: fixtureEntry('a') } };
    const lister = await connectProxy(['--config', JSON.stringify(config)], {}, env());
    const listerPid = lister.transport.pid!;
    expect((await lister.client.listTools()).tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool']);
    expect((await lister.client.callTool({ name: 'call_tool', arguments: { name: 'a__whoami' } })).isError).toBeFalsy();
    await lister.close();
    const core = [
      'qiming-mcp-core.cjs',
      'qiming-mcp-pinning.cjs',
      'qiming-mcp-process.cjs',
      'qiming-mcp-stdio-proxy.cjs',
    ];
    // The call went through the approval policy, loaded with the first tool call.
    expect(await loadedBy(listerPid)).toEqual(
      [...core, 'qiming-mcp-approval.cjs', 'qiming-mcp-tool-economy.cjs'].sort(),
    );

    const searcher = await connectProxy(['--config', JSON.stringify(config)], {}, env());
    const searcherPid = searcher.transport.pid!;
    await searcher.client.callTool({ name: 'search_tools', arguments: { query: 'echo' } });
    await searcher.close();
    expect(await loadedBy(searcherPid)).toEqual(
      [...core, 'qiming-mcp-tool-economy.cjs', 'qiming-mcp-tool-search.cjs'].sort(),
    );
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
    withinBudget('app', bytesOf(CLI, appFiles));
    // First use of the management routes: inline JSON has no file to edit, which the route says.
    const res = await bridge.fetch('/config');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: false, editable: false });
    bridge.child.kill('SIGTERM');
    await bridge.waitExit(10_000);
    const files = await loadedBy(bridge.pid);
    // The activity log is on in the bridge, pinning checks its servers' first lists, and MCP Apps' views load beside the start.
    expect(files).toEqual([
      'qiming-mcp-activity.cjs',
      'qiming-mcp-apps.cjs',
      'qiming-mcp-bridge.cjs',
      'qiming-mcp-config-edit.cjs',
      'qiming-mcp-core.cjs',
      'qiming-mcp-pinning.cjs',
      'qiming-mcp-process.cjs',
      'qiming-mcp-stdio-proxy.cjs',
    ]);
    const cli = builtCli();
    withinBudget(
      'bridge',
      bytesOf(
        cli,
        files.filter((f) => f !== 'qiming-mcp-config-edit.cjs'),
      ),
    );
  });

  it('a streamable HTTP entry that may sign in loads the HTTP client and the OAuth flow; convert loads its own file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qiming-loaded-'));
    const remote = await startHttpFixture('http', { name: 'r' });
    try {
      const proxy = await connectProxy(
        ['--config', JSON.stringify({ mcpServers: { r: { type: 'http', url: remote.url } } })],
        {},
        env(),
      );
      const pid = proxy.transport.pid!;
      expect((await proxy.client.listTools()).tools.map((t) => t.name)).toContain('r__echo');
      await proxy.close();
      expect(await loadedBy(pid)).toEqual([
        'qiming-mcp-core.cjs',
        'qiming-mcp-http-client.cjs',
        'qiming-mcp-oauth.cjs',
        'qiming-mcp-pinning.cjs',
        'qiming-mcp-stdio-proxy.cjs',
      ]);

      const convert = await connectProxy(['convert', remote.url, '--header', 'Authorization: Bearer x'], {}, env());
      const convertPid = convert.transport.pid!;
      expect((await convert.client.listTools()).tools.map((t) => t.name)).toContain('echo');
      await convert.close();
      const files = await loadedBy(convertPid);
      expect(files).toEqual([
        'qiming-mcp-convert.cjs',
        'qiming-mcp-core.cjs',
        'qiming-mcp-http-client.cjs',
        'qiming-mcp-stdio-proxy.cjs',
      ]);
      withinBudget('stdio', bytesOf(CLI, files));
    } finally {
      await remote.stop();
    }
  });

  it('no budget is more than the slack above what its start loads (the ratchet)', () => {
    for (const [start, bytes] of measured)
      expect(
        BUDGET[start] - bytes,
        `${start}: budget ${BUDGET[start]}, measured ${bytes}: lower the budget in docs/BENCHMARKS.md`,
      ).toBeLessThanOrEqual(RATCHET_SLACK);
    expect([...measured.keys()].sort()).toEqual(['app', 'bridge', 'stdio', 'version']);
  });
});
