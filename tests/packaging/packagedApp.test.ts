// The packaged app, offline and without an Electron binary: the real electron-builder
// (`--linux dir`, electron-builder.yml) packs this project around a stand-in Electron
// distribution. Then: what is inside app.asar and beside it, the fuses electron-builder
// flipped, the runtime's path resolution on that layout, and the packaged proxy CLI run from
// it (bridge mode, outside the repo) serving tools/list and calls from the bundled servers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import asar from '@electron/asar';
import { getCurrentFuseWire, FuseV1Options } from '@electron/fuses';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { builtinModules } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { waitNoProcess } from '../helpers/processGone.js';
import { ROOT, STOCK_FUSE_WIRE, listFiles, makeFakeElectronDist, packDir, type PackResult } from './packaging.js';
import { scaled } from '../helpers/loadScale.js';
import { resolveRuntimePaths, type RuntimePaths } from '../../src/main/runtime/resourcePaths.js';
import { resolveProxyCliPath, nodeCommand } from '../../src/main/runtime/cliPath.js';
import { defaultMcpConfig, runtimeVars } from '../../src/main/config/defaultMcpConfig.js';
import type { RuntimeStatus } from '../../src/shared/status.js';
import { PROXY_FILES } from '../../scripts/buildProxy.mjs';

let tmp = '';
let pack: PackResult;
let paths: RuntimePaths;
let entries: string[];
const DIST = join(ROOT, 'dist');
/** The app's built files; dist/index and dist/types are the npm package's entries, not shipped in the app. */
const appFile = (rel: string) => !/^dist\/(index|types)\//.test(rel);
/** The CLI's files (scripts/buildProxy.mjs: the CLI, the parts it loads per mode and on first use, the SDK's SSE file) and the servers. */
const UNPACKED = [
  ...[...PROXY_FILES.map((f) => f.file), 'qiming-mcp-sdk-sse.cjs'].map((f) => `dist/proxy/${f}`),
  'dist/servers/filesystem.mjs',
  'dist/servers/memory.mjs',
].sort();

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'qiming-pack-'));
  // electron-builder's own sanity check also fails the pack when package.json's "main"
  // (dist/main/main.cjs) is missing from the archive.
  pack = await packDir({ electronDist: makeFakeElectronDist(join(tmp, 'electron-dist')), outDir: join(tmp, 'out') });
  paths = resolveRuntimePaths({
    isPackaged: true,
    resourcesPath: pack.resources,
    appPath: join(pack.resources, 'app.asar'),
  });
  entries = asar.listPackage(join(pack.resources, 'app.asar'), { isPack: false }).map((e) => e.replaceAll('\\', '/'));
}, scaled(120_000));

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('packaged layout (electron-builder --dir)', () => {
  it('puts the proxy CLI and the bundled servers, and only them, outside the archive, byte for byte', () => {
    expect(listFiles(join(pack.resources, 'app.asar.unpacked'))).toEqual(UNPACKED);
    for (const rel of UNPACKED) {
      expect(
        readFileSync(join(pack.resources, 'app.asar.unpacked', rel)).equals(readFileSync(join(ROOT, rel))),
        rel,
      ).toBe(true);
    }
  });

  it('archives every built file and package.json, and nothing of the sources, tests, maps or dev tools', () => {
    for (const rel of ['package.json', ...listFiles(DIST, 'dist').filter((f) => !f.endsWith('.map') && appFile(f))])
      expect(entries, rel).toContain(`/${rel}`);
    expect(entries.filter((e) => !appFile(e.slice(1)))).toEqual([]);
    const topLevel = new Set(entries.map((e) => e.split('/')[1]));
    // No node_modules at all: the bundles carry their dependencies (next test).
    expect([...topLevel].sort()).toEqual(['dist', 'package.json']);
    const leaks = entries.filter(
      (e) => /\.(map|ts|mts|cts|tsx)$/.test(e) || /^\/(src|tests|bench|scripts|docs|build|release)(\/|$)/.test(e),
    );
    expect(leaks).toEqual([]);
  });

  it('ships self-contained bundles: main and preload load only electron and node:*, the rest only node:* (and the CLI its files beside it)', () => {
    const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
    // Real module loads, esbuild's `__require(...)` included, but not `require("...")` inside
    // strings (ajv's templates for standalone code).
    const loads = [
      /(?<![A-Za-z0-9$.'"`])require\(\s*["']([^"']+)["']\s*\)/g,
      /^\s*import\s[^;]*?\bfrom\s*["']([^"']+)["']/gm,
      /^\s*import\s*["']([^"']+)["']/gm,
      /\bimport\(\s*["']([^"']+)["']\s*\)/g,
    ];
    const scripts = listFiles(DIST, 'dist').filter((f) => /\.[cm]?js$/.test(f) && appFile(f));
    expect(scripts).toEqual(expect.arrayContaining(['dist/main/main.cjs', 'dist/main/preload.cjs', ...UNPACKED]));
    for (const rel of scripts) {
      const text = readFileSync(join(ROOT, rel), 'utf8');
      const specs = new Set(loads.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]!)));
      const sibling = (s: string) => s.startsWith('./') && scripts.includes(join(dirname(rel), s).split(sep).join('/'));
      const foreign = [...specs].filter(
        (s) =>
          !builtins.has(s) &&
          !(s === 'electron' && rel.startsWith('dist/main/')) &&
          !(rel.startsWith('dist/proxy/') && sibling(s)) &&
          // The headless bridge's keychain binding, required on first use of that store only: the
          // app's bridge keeps secrets under its safeStorage key and never loads it (decision 0037).
          !(rel === 'dist/proxy/qiming-mcp-secrets.cjs' && s === '@napi-rs/keyring'),
      );
      expect(foreign, rel).toEqual([]);
    }
  });

  it('lets electron-builder flip the fuses on the app executable as configured, runAsNode left on', async () => {
    const exe = join(pack.appDir, 'qiming-mcp-runtime');
    const wire = (await getCurrentFuseWire(exe)) as Record<number, number>;
    const on = (i: number) => String.fromCharCode(wire[i]!);
    const now = Array.from({ length: STOCK_FUSE_WIRE.length }, (_, i) => on(i)).join('');
    expect(now).not.toBe(STOCK_FUSE_WIRE);
    expect(on(FuseV1Options.RunAsNode)).toBe('1');
    expect(on(FuseV1Options.EnableNodeOptionsEnvironmentVariable)).toBe('0');
    expect(on(FuseV1Options.EnableNodeCliInspectArguments)).toBe('0');
    expect(on(FuseV1Options.OnlyLoadAppFromAsar)).toBe('1');
    expect(on(FuseV1Options.EnableEmbeddedAsarIntegrityValidation)).toBe('1');
    expect(on(FuseV1Options.EnableCookieEncryption)).toBe('1');
    expect(on(FuseV1Options.GrantFileProtocolExtraPrivileges)).toBe('0');
    // Not configured: left as Electron ships it.
    expect(on(FuseV1Options.LoadBrowserProcessSpecificV8Snapshot)).toBe(
      STOCK_FUSE_WIRE[FuseV1Options.LoadBrowserProcessSpecificV8Snapshot],
    );
  });

  it('is where the runtime looks: resourcePaths.ts and cliPath.ts both find the unpacked files', () => {
    const unpacked = join(pack.resources, 'app.asar.unpacked');
    expect(paths.cliPath).toBe(join(unpacked, 'dist', 'proxy', 'qiming-mcp-stdio-proxy.cjs'));
    for (const f of [paths.cliPath, paths.defaultServers.memory, paths.defaultServers.filesystem])
      expect(existsSync(f), f).toBe(true);
    expect(entries).toContain('/dist/renderer/index.html');
    expect(paths.rendererDir).toBe(join(pack.resources, 'app.asar', 'dist', 'renderer'));
    // From the main bundle's folder inside the archive, as McpRuntime resolves it by default.
    expect(
      resolveProxyCliPath({ hereDir: join(pack.resources, 'app.asar', 'dist', 'main'), resourcesPath: pack.resources }),
    ).toBe(paths.cliPath);
  });
});

describe('the packaged CLI, run from the layout with plain node', () => {
  let bridge: ChildProcess | undefined;
  afterAll(() => {
    if (bridge && bridge.exitCode === null && bridge.signalCode === null) bridge.kill('SIGKILL');
  });

  it('serves tools/list and tool calls from the bundled servers, with the default config, then leaves no process', async () => {
    const work = join(tmp, 'work');
    const data = join(work, 'data');
    const files = join(work, 'files');
    mkdirSync(data, { recursive: true });
    mkdirSync(files, { recursive: true });
    writeFileSync(join(files, 'hello.txt'), 'hi\n');
    const configFile = join(work, 'mcp.json');
    writeFileSync(configFile, JSON.stringify(defaultMcpConfig(), null, 2));
    const node = nodeCommand();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...node.env,
      ...runtimeVars({ paths, node, dataDir: data, filesDir: files }),
      ELECTRON_RUN_AS_NODE: '1',
      MCP_BRIDGE_TOKEN: 'packaged-test-token-0123456789abcdef',
    };
    delete env.MCP_PROXY_LOG_FILE;
    // cwd outside the repo: the bundles must not resolve anything from its node_modules.
    const child = spawn(node.command, [paths.cliPath, 'proxy', '--port', '0', '--config-file', configFile], {
      cwd: work,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    bridge = child;
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const ready = await new Promise<{
      url: string;
      pid: number;
      servers: { id: string; state: string; tools: number }[];
    }>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ready line within 30 s; stderr:\n${stderr.slice(-3000)}`)),
        30_000,
      );
      createInterface({ input: child.stdout! }).once('line', (line) => {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      });
      child.once('exit', (code) =>
        reject(new Error(`bridge exited (${code}) before ready; stderr:\n${stderr.slice(-3000)}`)),
      );
    });
    expect(ready.servers.map((s) => [s.id, s.state]).sort()).toEqual([
      ['filesystem', 'ready'],
      ['memory', 'ready'],
    ]);
    for (const s of ready.servers) expect(s.tools, s.id).toBeGreaterThan(0);

    const auth = { Authorization: `Bearer ${env.MCP_BRIDGE_TOKEN!}` };
    const status = (await (await fetch(`${ready.url}/status`, { headers: auth })).json()) as RuntimeStatus;
    const serverPids = status.servers.map((s) => s.pid).filter((p): p is number => typeof p === 'number');
    expect(serverPids).toHaveLength(2);

    const client = new Client({ name: 'packaging-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${ready.url}/mcp`), { requestInit: { headers: auth } }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'memory__create_entities',
          'memory__read_graph',
          'filesystem__list_directory',
          'filesystem__read_text_file',
        ]),
      );
      const created = await client.callTool({
        name: 'memory__create_entities',
        arguments: { entities: [{ name: 'pkg', entityType: 'test', observations: ['packaged'] }] },
      });
      expect(created.isError ?? false).toBe(false);
      // The graph went to the data folder from the default config, not beside the (read-only) script.
      expect(readFileSync(join(data, 'memory.jsonl'), 'utf8')).toContain('"pkg"');
      expect(listFiles(join(pack.resources, 'app.asar.unpacked'))).toEqual(UNPACKED);
      const listing = await client.callTool({ name: 'filesystem__list_directory', arguments: { path: files } });
      expect(JSON.stringify(listing.content)).toContain('hello.txt');
    } finally {
      await client.close();
    }
    // The panel's management routes load their file on first use (scripts/buildProxy.mjs).
    const config = (await (await fetch(`${ready.url}/config`, { headers: auth })).json()) as {
      file?: string;
      servers?: { id: string }[];
    };
    expect(config.file).toBe(configFile);
    expect(config.servers?.map((s) => s.id).sort()).toEqual(['filesystem', 'memory']);
    // The legacy SSE route loads the SDK's SSE transport from the file beside the CLI.
    const sse = new Client({ name: 'packaging-test-sse', version: '1.0.0' });
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
    await sse.connect(
      new SSEClientTransport(new URL(`${ready.url}/sse/memory`), {
        requestInit: { headers: auth },
        eventSourceInit: { fetch: (u, i) => fetch(u, { ...i, headers: { ...auth, Accept: 'text/event-stream' } }) },
      }),
    );
    try {
      expect((await sse.listTools()).tools.map((t) => t.name)).toContain('read_graph');
    } finally {
      await sse.close();
    }

    child.kill('SIGTERM');
    await Promise.race([
      exited,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('bridge did not exit within 10 s of SIGTERM')), 10_000),
      ),
    ]);
    for (const pid of [child.pid!, ...serverPids]) {
      await waitNoProcess(pid, 5000);
      expect(() => process.kill(pid, 0), `pid ${pid}`).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    }
  }, 60_000);
});
