// The first-run config (works with no network: it is started for real here) and where the
// runtime finds the proxy CLI and how it runs Node scripts inside and outside Electron.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { ensureUserConfig } from '../../src/main/config/ensureUserConfig.js';
import { defaultMcpConfig, runtimeVars } from '../../src/main/config/defaultMcpConfig.js';
import { resolveRuntimePaths } from '../../src/main/runtime/resourcePaths.js';
import {
  isElectron,
  nodeCommand,
  proxyCliCandidates,
  resolveProxyCliPath,
  unpackedPath,
} from '../../src/main/runtime/cliPath.js';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import {
  CLI,
  ROOT,
  ensureCli,
  notRunning,
  killQuietly,
  removeTempDirs,
  tempDir,
  waitAllNotRunning,
} from './mainHarness.js';

afterEach(() => removeTempDirs());

describe('first-run config', () => {
  it('is written once, privately, and its servers start with no network', async () => {
    const userData = tempDir();
    const path = ensureUserConfig(userData, defaultMcpConfig());
    expect(path).toBe(join(userData, 'mcp.json'));
    if (process.platform !== 'win32') expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(defaultMcpConfig());

    // Never overwritten.
    writeFileSync(path, '{"mcpServers": {}}');
    ensureUserConfig(userData, defaultMcpConfig());
    expect(readFileSync(path, 'utf8')).toBe('{"mcpServers": {}}');
    writeFileSync(path, JSON.stringify(defaultMcpConfig()));

    // Started as main.ts starts it: the bundled servers, run by this process's executable.
    const paths = resolveRuntimePaths({ isPackaged: false, resourcesPath: '', appPath: ROOT });
    const filesDir = join(userData, 'mcp', 'files');
    mkdirSync(filesDir, { recursive: true });
    const env = runtimeVars({ paths, node: nodeCommand(), dataDir: join(userData, 'mcp'), filesDir });
    const runtime = new McpRuntime({ configFile: path, cliPath: ensureCli(), watchConfig: false, env });
    let pids: number[] = [];
    try {
      await runtime.start();
      const info = await runtime.whenReady();
      pids = [runtime.status().bridge.pid!, ...runtime.status().servers.map((s) => s.pid!)];
      expect(info.servers.map((s) => [s.id, s.state])).toEqual([
        ['memory', 'ready'],
        ['filesystem', 'ready'],
      ]);
    } finally {
      await runtime.stop({ deadlineMs: 3000 });
      for (const p of pids) if (!notRunning(p)) killQuietly(p);
    }
    expect(await waitAllNotRunning(pids, 2000)).toEqual([]);
  });
});

describe('cliPath', () => {
  it('tells Electron from node', () => {
    expect(isElectron()).toBe(false);
    expect(nodeCommand()).toEqual({ command: process.execPath, env: {}, electron: false });
    expect(nodeCommand({ versions: { ...process.versions, electron: '45.0.0' } }).env).toEqual({
      ELECTRON_RUN_AS_NODE: '1',
    });
  });

  it('finds the built CLI in the dev tree and maps packaged paths out of the asar', () => {
    ensureCli();
    expect(resolveProxyCliPath()).toBe(CLI);
    const packaged = proxyCliCandidates({
      hereDir: `${sep}opt${sep}App${sep}resources${sep}app.asar${sep}dist${sep}main`,
      resourcesPath: `${sep}opt${sep}App${sep}resources`,
    });
    expect(packaged[0]).toBe(
      join(sep, 'opt', 'App', 'resources', 'app.asar.unpacked', 'dist', 'proxy', 'qiming-mcp-stdio-proxy.cjs'),
    );
    expect(packaged).toContain(join(sep, 'opt', 'App', 'resources', 'proxy', 'qiming-mcp-stdio-proxy.cjs'));
    expect(unpackedPath(join(sep, 'a', 'app.asar', 'x'))).toBe(join(sep, 'a', 'app.asar.unpacked', 'x'));
    expect(() =>
      resolveProxyCliPath({ hereDir: join(sep, 'nowhere', 'a', 'b', 'c'), resourcesPath: join(sep, 'nowhere') }),
    ).toThrow(/not found/);
  });
});
