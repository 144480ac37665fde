// Runtime file paths in the dev tree and in the packaged layouts (POSIX and Windows path
// flavours), checked against the real built dev tree, plus the default MCP config and the
// variables it expands. The packaged layout on disk is checked in tests/packaging.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { resolveRuntimePaths, SERVER_FILES } from '../../src/main/runtime/resourcePaths.js';
import { defaultMcpConfig, runtimeVars, RUNTIME_VAR_NAMES } from '../../src/main/config/defaultMcpConfig.js';
import { proxyCliCandidates, resolveProxyCliPath } from '../../src/main/runtime/cliPath.js';
import { parseConfig, ConfigError, type StdioEntry } from '../../src/proxy/index.js';

const ROOT = path.join(import.meta.dirname, '..', '..');

describe('resolveRuntimePaths', () => {
  it('dev tree: everything under <repo>/dist, and the files are really there after the build', () => {
    const p = resolveRuntimePaths({ isPackaged: false, resourcesPath: '/opt/electron/resources', appPath: ROOT });
    expect(p.cliPath).toBe(path.join(ROOT, 'dist', 'proxy', 'qiming-mcp-stdio-proxy.cjs'));
    expect(p.rendererDir).toBe(path.join(ROOT, 'dist', 'renderer'));
    expect(p.serversDir).toBe(path.join(ROOT, 'dist', 'servers'));
    expect(p.defaultServers).toEqual({
      memory: path.join(ROOT, 'dist', 'servers', 'memory.mjs'),
      filesystem: path.join(ROOT, 'dist', 'servers', 'filesystem.mjs'),
    });
    // The Electron binary's own resources folder (dev) must not be used.
    expect(JSON.stringify(p)).not.toContain('/opt/electron');
    for (const f of [
      p.cliPath,
      path.join(p.rendererDir, 'index.html'),
      p.defaultServers.memory,
      p.defaultServers.filesystem,
    ]) {
      expect(existsSync(f), f).toBe(true);
    }
  });

  it('dev tree: agrees with cliPath.ts, which the runtime uses when given no path', () => {
    const p = resolveRuntimePaths({ isPackaged: false, resourcesPath: '', appPath: ROOT });
    // As from the main bundle (dist/main/main.cjs) and as from the sources (tests).
    expect(resolveProxyCliPath({ hereDir: path.join(ROOT, 'dist', 'main') })).toBe(p.cliPath);
    expect(resolveProxyCliPath({ hereDir: path.join(ROOT, 'src', 'main', 'runtime') })).toBe(p.cliPath);
  });

  it('packaged (POSIX): CLI and servers in app.asar.unpacked, the panel inside the archive', () => {
    const resources = '/opt/Qiming MCP Runtime/resources';
    const p = resolveRuntimePaths(
      { isPackaged: true, resourcesPath: resources, appPath: `${resources}/app.asar` },
      path.posix,
    );
    expect(p).toEqual({
      cliPath: `${resources}/app.asar.unpacked/dist/proxy/qiming-mcp-stdio-proxy.cjs`,
      rendererDir: `${resources}/app.asar/dist/renderer`,
      serversDir: `${resources}/app.asar.unpacked/dist/servers`,
      defaultServers: {
        memory: `${resources}/app.asar.unpacked/dist/servers/memory.mjs`,
        filesystem: `${resources}/app.asar.unpacked/dist/servers/filesystem.mjs`,
      },
    });
    // cliPath.ts maps the same layout from the main bundle's folder inside the archive.
    expect(proxyCliCandidates({ hereDir: `${resources}/app.asar/dist/main`, resourcesPath: resources })).toContain(
      p.cliPath,
    );
  });

  it('packaged (macOS bundle): same rule under Contents/Resources', () => {
    const resources = '/Applications/Qiming MCP Runtime.app/Contents/Resources';
    const p = resolveRuntimePaths(
      { isPackaged: true, resourcesPath: resources, appPath: `${resources}/app.asar` },
      path.posix,
    );
    expect(p.cliPath).toBe(`${resources}/app.asar.unpacked/dist/proxy/qiming-mcp-stdio-proxy.cjs`);
    expect(p.defaultServers.filesystem).toBe(`${resources}/app.asar.unpacked/dist/servers/filesystem.mjs`);
  });

  it('packaged (Windows): backslash paths, drive letter, case-insensitive .ASAR', () => {
    const resources = 'C:\\Users\\Ann\\AppData\\Local\\Programs\\Qiming MCP Runtime\\resources';
    const p = resolveRuntimePaths(
      { isPackaged: true, resourcesPath: resources, appPath: `${resources}\\app.asar` },
      path.win32,
    );
    expect(p.cliPath).toBe(`${resources}\\app.asar.unpacked\\dist\\proxy\\qiming-mcp-stdio-proxy.cjs`);
    expect(p.rendererDir).toBe(`${resources}\\app.asar\\dist\\renderer`);
    expect(p.defaultServers.memory).toBe(`${resources}\\app.asar.unpacked\\dist\\servers\\memory.mjs`);
    const upper = resolveRuntimePaths(
      { isPackaged: true, resourcesPath: resources, appPath: `${resources}\\APP.ASAR` },
      path.win32,
    );
    expect(upper.serversDir).toBe(`${resources}\\APP.ASAR.unpacked\\dist\\servers`);
  });

  it('packaged without an archive (asar: false): everything in resources/app', () => {
    const p = resolveRuntimePaths({ isPackaged: true, resourcesPath: '/r', appPath: '/r/app' }, path.posix);
    expect(p.cliPath).toBe('/r/app/dist/proxy/qiming-mcp-stdio-proxy.cjs');
    expect(p.rendererDir).toBe('/r/app/dist/renderer');
    expect(p.serversDir).toBe('/r/app/dist/servers');
  });

  it('packaged with an empty resourcesPath falls back to the archive folder', () => {
    const p = resolveRuntimePaths({ isPackaged: true, resourcesPath: '', appPath: '/r/app.asar' }, path.posix);
    expect(p.cliPath).toBe('/r/app.asar.unpacked/dist/proxy/qiming-mcp-stdio-proxy.cjs');
  });

  it('a dev tree is never mapped to .unpacked, even when its folder name ends in .asar', () => {
    const p = resolveRuntimePaths({ isPackaged: false, resourcesPath: '/r', appPath: '/src/app.asar' }, path.posix);
    expect(p.cliPath).toBe('/src/app.asar/dist/proxy/qiming-mcp-stdio-proxy.cjs');
  });
});

describe('defaultMcpConfig + runtimeVars', () => {
  const paths = resolveRuntimePaths({ isPackaged: true, resourcesPath: '/r', appPath: '/r/app.asar' }, path.posix);
  const env = runtimeVars({
    paths,
    node: { command: '/opt/app/qiming-mcp-runtime' },
    dataDir: '/home/ann/.config/Qiming',
    filesDir: '/home/ann/work',
  });

  it('holds no absolute path: only variables', () => {
    const text = JSON.stringify(defaultMcpConfig());
    expect(text).not.toMatch(/"\/|[A-Za-z]:\\\\/);
    for (const name of Object.values(RUNTIME_VAR_NAMES)) expect(text).toContain(`\${${name}}`);
  });

  it("expands, with the proxy's own config parser, to the bundled servers run as the app", () => {
    const cfg = parseConfig(defaultMcpConfig(), { env });
    const memory = cfg.servers.find((s) => s.id === 'memory') as StdioEntry;
    const fs = cfg.servers.find((s) => s.id === 'filesystem') as StdioEntry;
    expect(memory).toMatchObject({
      kind: 'stdio',
      command: '/opt/app/qiming-mcp-runtime',
      args: [`/r/app.asar.unpacked/dist/servers/${SERVER_FILES.memory}`],
      env: { ELECTRON_RUN_AS_NODE: '1', MEMORY_FILE_PATH: '/home/ann/.config/Qiming/memory.jsonl' },
      persistent: true,
    });
    expect(fs).toMatchObject({
      command: '/opt/app/qiming-mcp-runtime',
      args: [paths.defaultServers.filesystem, '/home/ann/work'],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    });
  });

  it('is rejected, naming the variable, when main did not set the variables', () => {
    const missing = { ...env };
    delete missing[RUNTIME_VAR_NAMES.dataDir];
    expect(() => parseConfig(defaultMcpConfig(), { env: missing })).toThrow(ConfigError);
    expect(() => parseConfig(defaultMcpConfig(), { env: missing })).toThrow(/QIMING_DATA_DIR/);
  });

  it('returns a fresh object each call', () => {
    const a = defaultMcpConfig();
    a.mcpServers.memory!.command = 'x';
    expect(defaultMcpConfig().mcpServers.memory!.command).toBe('${QIMING_NODE}');
  });
});
