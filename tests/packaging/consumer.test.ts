// The package as an app gets it: `npm pack` of this repository (as built), the tarball
// installed into a fresh project (dependencies from the npm cache: offline when it has them,
// else the registry once), then, in that project, plain Node runs the runtime from
// `qiming-mcp-runtime/main` (tests/fixtures/consumer/runtime.mjs), and tsc type-checks a file
// using every entry (entries.ts) plus the README's "Embed it in your app" snippets exactly
// as written, under moduleResolution "bundler" and "node16", against Electron's own types.
// The README's main snippet also runs under a stand-in electron, its preload snippet is
// bundled with the README's esbuild command and run, and a bundled main finds the CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { buildSync, transformSync } from 'esbuild';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FIXTURES, MEMORY_SERVER, ROOT } from '../helpers/paths.js';
import { waitAllNotRunning } from '../helpers/processGone.js';
import { waitFor } from '../helpers/waitFor.js';

/** What the preload exposes: status, restart, the panel's server management, sign-in, pin decisions, activity, app views. */
const API_METHODS = [
  'activity',
  'appView',
  'appViewAccept',
  'appViewCall',
  'appViewRead',
  'callTool',
  'changeConfig',
  'decidePin',
  'getAgents',
  'getConfig',
  'getStatus',
  'installConfirm',
  'installPlan',
  'installSearch',
  'installUninstall',
  'installedServers',
  'listTools',
  'onBundleOpened',
  'onStatus',
  'openAppLink',
  'previewImport',
  'restart',
  'serverLog',
  'setAgentServers',
  'signIn',
  'signOut',
  'takeOpenedBundles',
];

const run = promisify(execFile);
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const INSTALL_TIMEOUT_MS = 120_000;
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let dir: string;
let app: string;

/**
 * npm's environment without what `npm test` exported for this repository (its config, its
 * lifecycle), keeping the user's own cache and config (the suite's HOME has neither:
 * tests/globalSetup.ts).
 */
function npmEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || /^npm_config_(cache|userconfig)$/i.test(k)),
  );
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
}

/** The README's code block after `<!-- consumer-test: <name> -->`. */
function readmeSnippet(name: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const m = new RegExp(`<!-- consumer-test: ${name.replace('.', '\\.')} -->\\s*\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(
    readme,
  );
  if (!m) throw new Error(`README.md has no "consumer-test: ${name}" snippet`);
  return m[1]!;
}

beforeAll(
  async () => {
    dir = mkdtempSync(join(tmpdir(), 'qiming-consumer-'));
    app = join(dir, 'app');
    mkdirSync(join(app, 'src'), { recursive: true });
    // tests/globalSetup.ts built dist/; prepack would build it again.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
      cwd: ROOT,
      env: npmEnv(),
      timeout: 60_000,
    });
    const tarball = join(dir, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'consumer-app', version: '1.0.0', private: true, type: 'module' }),
    );
    const install = (mode: string) =>
      run('npm', ['install', mode, '--ignore-scripts', '--no-package-lock', tarball], {
        cwd: app,
        env: npmEnv(),
        timeout: INSTALL_TIMEOUT_MS,
      });
    // Offline when the cache has every dependency; the first run on a machine may need the registry.
    await install('--offline').catch(() => install('--prefer-offline'));
  },
  2 * INSTALL_TIMEOUT_MS + 60_000,
);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed module in a fresh project', () => {
  it('installs without Electron or electron-builder, and exports only its entries', () => {
    const mod = join(app, 'node_modules');
    expect(JSON.parse(readFileSync(join(mod, PKG.name, 'package.json'), 'utf8')).version).toBe(PKG.version);
    for (const absent of ['electron', 'electron-builder', 'app-builder-lib', '@modelcontextprotocol/sdk'])
      expect(existsSync(join(mod, absent)), absent).toBe(false);
    // What it runs is in the tarball: the CLI, the servers, the panel; not this repository's demo app.
    for (const f of [
      'dist/proxy/qiming-mcp-stdio-proxy.cjs',
      'dist/servers/memory.mjs',
      'dist/renderer/index.html',
      'dist/types/index/main.d.ts',
      'CHANGELOG.md',
    ])
      expect(existsSync(join(mod, PKG.name, f)), f).toBe(true);
    // npm always packs "main" (this repository's own app, for `electron .`); it is not exported.
    const installed = JSON.parse(readFileSync(join(mod, PKG.name, 'package.json'), 'utf8'));
    expect(Object.keys(installed.exports)).toEqual([
      './main',
      './preload',
      './panel',
      './panel.css',
      './cli',
      './shared',
      './package.json',
    ]);
    expect(installed.peerDependenciesMeta).toEqual({ electron: { optional: true } });
  });

  it('runs McpRuntime from qiming-mcp-runtime/main in plain Node: ready, status, ACP entries, stop, nothing left', async () => {
    const config = join(app, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          memory: {
            command: process.execPath,
            args: [MEMORY_SERVER],
            env: { MEMORY_FILE_PATH: join(app, 'memory.jsonl') },
          },
        },
      }),
    );
    copyFileSync(join(FIXTURES, 'consumer', 'runtime.mjs'), join(app, 'runtime.mjs'));
    const { stdout } = await run(process.execPath, ['runtime.mjs', config], { cwd: app, timeout: 60_000 });
    const out = JSON.parse(stdout.trim().split('\n').pop()!);

    expect(out.status.bridge.state).toBe('ready');
    expect(out.status.servers.map((s: { id: string; state: string }) => [s.id, s.state])).toEqual([
      ['memory', 'ready'],
    ]);
    expect(out.status.servers[0].tools.map((t: { name: string }) => t.name)).toContain('read_graph');
    // One stdio entry: this package's CLI, run by this node, over the bridge.
    expect(out.mcpServers).toHaveLength(1);
    const entry = out.mcpServers[0];
    expect(entry.command).toBe(process.execPath);
    expect(entry.args[0]).toBe(join(app, 'node_modules', PKG.name, 'dist', 'proxy', 'qiming-mcp-stdio-proxy.cjs'));
    expect(entry.args.join(' ')).not.toContain(out.status.bridge.token ?? '\u0000never');
    // The aggregate entry prefixes tool names with the server id.
    expect(out.viaEntry.tools).toEqual(out.status.servers[0].tools.map((t: { name: string }) => `memory__${t.name}`));
    expect(out.afterStop.bridge.state).toBe('stopped');
    expect(out.exposed).toEqual([
      ['mcpRuntime', API_METHODS],
      ['mcpRuntime', API_METHODS],
    ]);
    expect(out).toMatchObject({ cliPath: entry.args[0], cliExists: true, serversExist: true, panelExists: true });
    expect(out.asarUnpack).toEqual([
      `node_modules/${PKG.name}/dist/proxy/**`,
      `node_modules/${PKG.name}/dist/servers/**`,
    ]);
    const refused =
      "exposeMcpRuntime: pass { contextBridge, ipcRenderer } from 'electron' (they cannot be required here)";
    expect(out.withoutElectron).toEqual([refused, refused]);
    expect(out.channels).toEqual(['mcp:status:get', 'mcp:status:get', 'mcpRuntime']);

    const pids = [out.status.bridge.pid, ...out.status.servers.map((s: { pid: number }) => s.pid), out.viaEntry.pid];
    expect(pids.every((p) => Number.isInteger(p))).toBe(true);
    expect(await waitAllNotRunning(pids, 3000)).toEqual([]);
  });

  it('finds its CLI and panel when the app bundles it into its own main file', async () => {
    writeFileSync(
      join(app, 'bundleMe.mjs'),
      "import { proxyCliPath } from 'qiming-mcp-runtime/cli';\nimport { panelDir } from 'qiming-mcp-runtime/panel';\nconsole.log(JSON.stringify([proxyCliPath(), panelDir()]));\n",
    );
    // As electron-vite or webpack would: everything in one file, in another folder.
    buildSync({
      entryPoints: [join(app, 'bundleMe.mjs')],
      outfile: join(app, 'out', 'main.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
    });
    const { stdout } = await run(process.execPath, [join(app, 'out', 'main.mjs')], { cwd: app, timeout: 30_000 });
    const pkg = join(app, 'node_modules', PKG.name);
    expect(JSON.parse(stdout)).toEqual([
      join(pkg, 'dist', 'proxy', 'qiming-mcp-stdio-proxy.cjs'),
      join(pkg, 'dist', 'renderer'),
    ]);
  });

  it('bundles the README preload snippet as the README says, and it exposes the API through contextBridge', async () => {
    const dirP = join(app, 'preload-run');
    const fake = join(dirP, 'node_modules', 'electron');
    mkdirSync(fake, { recursive: true });
    writeFileSync(join(fake, 'package.json'), JSON.stringify({ name: 'electron', main: 'index.cjs' }));
    // contextBridge and ipcRenderer as a preload sees them, reporting what is exposed and invoked.
    const fakeCode = [
      'const invoked = [];',
      'exports.ipcRenderer = { invoke: async (ch) => (invoked.push(ch), { bridge: { state: "ready" }, servers: [] }), on() {}, removeListener() {} };',
      'exports.contextBridge = { exposeInMainWorld: (key, api) => api.getStatus().then(() => console.log(JSON.stringify({ key, methods: Object.keys(api).sort(), invoked }))) };',
    ];
    writeFileSync(join(fake, 'index.cjs'), fakeCode.join('\n'));
    writeFileSync(join(app, 'preload.ts'), readmeSnippet('preload.ts'));
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const command = /`(esbuild preload\.ts [^`]+)`/.exec(readme)![1]!.split(' ');
    // The README's command line, as esbuild's own CLI parses it (run from the app's folder).
    await run(join(ROOT, 'node_modules', '.bin', 'esbuild'), command.slice(1), { cwd: app, timeout: 30_000 });
    copyFileSync(join(app, 'preload.cjs'), join(dirP, 'preload.cjs'));
    const { stdout } = await run(process.execPath, ['preload.cjs'], { cwd: dirP, timeout: 30_000 });
    expect(JSON.parse(stdout)).toEqual({ key: 'mcpRuntime', methods: API_METHODS, invoked: ['mcp:status:get'] });
    // One file that requires nothing but electron (a sandboxed preload can require nothing else).
    const requires = [...readFileSync(join(dirP, 'preload.cjs'), 'utf8').matchAll(/require\("([^"]+)"\)/g)].map(
      (m) => m[1],
    );
    expect(new Set(requires)).toEqual(new Set(['electron']));
  });

  it.each(['bundler', 'node16'])(
    'type-checks every entry and the README snippets (moduleResolution %s)',
    async (resolution) => {
      const mod = join(app, 'node_modules');
      // Types only (never run): Electron's and Node's declarations from this repository.
      mkdirSync(join(mod, '@types'), { recursive: true });
      if (!existsSync(join(mod, '@types/node')))
        symlinkSync(join(ROOT, 'node_modules', '@types/node'), join(mod, '@types/node'), 'dir');
      // electron's declarations alone: its index.js would try to download Electron if anything required it.
      if (!existsSync(join(mod, 'electron'))) {
        mkdirSync(join(mod, 'electron'));
        writeFileSync(
          join(mod, 'electron', 'package.json'),
          JSON.stringify({ name: 'electron', types: 'electron.d.ts' }),
        );
        symlinkSync(join(ROOT, 'node_modules', 'electron', 'electron.d.ts'), join(mod, 'electron', 'electron.d.ts'));
      }
      copyFileSync(join(FIXTURES, 'consumer', 'entries.ts'), join(app, 'src', 'entries.ts'));
      writeFileSync(join(app, 'src', 'main.ts'), readmeSnippet('main.ts'));
      writeFileSync(join(app, 'src', 'preload.ts'), readmeSnippet('preload.ts'));
      const module = resolution === 'bundler' ? 'ESNext' : 'Node16';
      const tsconfig = {
        compilerOptions: {
          target: 'ES2022',
          module,
          moduleResolution: resolution,
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          lib: ['ES2022', 'DOM'],
          types: ['node'],
        },
        include: ['src'],
      };
      writeFileSync(join(app, `tsconfig.${resolution}.json`), JSON.stringify(tsconfig));
      const result = await run(process.execPath, [TSC, '-p', `tsconfig.${resolution}.json`], {
        cwd: app,
        timeout: 120_000,
      }).catch((err: { stdout?: string }) => err);
      expect('stdout' in result ? result.stdout : '').toBe('');
    },
    // tsc's own bound above, and room after it: a loaded machine takes minutes for this check.
    150_000,
  );

  it('runs the README main-process snippet as written, under a stand-in electron: ready, IPC for its page only, quit stops everything', async () => {
    // `electron` for this folder only: tests/fixtures/fakeElectron.cjs, driven over the IPC channel.
    const runDir = join(app, 'run');
    const fake = join(runDir, 'node_modules', 'electron');
    mkdirSync(fake, { recursive: true });
    writeFileSync(join(fake, 'package.json'), JSON.stringify({ name: 'electron', main: 'index.cjs' }));
    writeFileSync(
      join(fake, 'index.cjs'),
      `module.exports = require(${JSON.stringify(join(FIXTURES, 'fakeElectron.cjs'))});\n`,
    );
    writeFileSync(
      join(runDir, 'main.mjs'),
      transformSync(readmeSnippet('main.ts'), { loader: 'ts', format: 'esm' }).code,
    );
    // The snippet writes an empty config only when none exists: give it one with a server.
    const root = join(dir, 'electron-root');
    mkdirSync(join(root, 'userData'), { recursive: true });
    const config = {
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [MEMORY_SERVER],
          env: { MEMORY_FILE_PATH: join(root, 'memory.jsonl') },
        },
      },
    };
    writeFileSync(join(root, 'userData', 'mcp.json'), JSON.stringify(config));

    const child = spawn(process.execPath, ['main.mjs'], {
      cwd: runDir,
      env: { ...process.env, FAKE_ELECTRON_ROOT: root, FAKE_ELECTRON_APP_PATH: runDir },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const messages: { type: string; [k: string]: unknown }[] = [];
    child.on('message', (m: { type: string }) => messages.push(m));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    let nextId = 1;
    const invoke = (url: string) => {
      const id = nextId++;
      child.send({ type: 'invoke', id, channel: 'mcp:status:get', url, args: [] });
      return waitFor(
        () =>
          messages.find((m) => m.type === 'result' && m.id === id) as
            { ok: boolean; value?: any; error?: string } | undefined,
        10_000,
        'an IPC result',
      );
    };
    try {
      const loaded = await waitFor(
        () => messages.find((m) => m.type === 'loadFile'),
        10_000,
        `loadFile (stderr: ${stderr})`,
      );
      const page = pathToFileURL(loaded.file as string).href;
      expect(loaded.file).toBe(join(app, 'node_modules', PKG.name, 'dist', 'renderer', 'index.html'));
      const status = await waitFor(
        async () => {
          const r = await invoke(page);
          return r.value?.bridge.state === 'ready' ? r.value : undefined;
        },
        30_000,
        `a ready bridge (stderr: ${stderr})`,
      );
      expect(status.servers.map((s: { id: string; state: string }) => [s.id, s.state])).toEqual([['memory', 'ready']]);
      expect(await invoke('https://evil.example/')).toMatchObject({
        ok: false,
        error: expect.stringMatching(/sender not allowed/),
      });
      // The snippet prints the ACP entries once ready: this package's CLI, run by this node.
      await waitFor(() => stdout.includes('qiming-mcp-stdio-proxy.cjs'), 10_000, 'the ACP entries on stdout');
      expect(messages.some((m) => m.type === 'webContents.send' && m.channel === 'mcp:status:changed')).toBe(true);

      child.send({ type: 'quit' });
      expect(await exited).toBe(0);
      expect(messages.filter((m) => m.type === 'before-quit').map((m) => m.prevented)).toEqual([true, false]);
      const pids = [child.pid!, status.bridge.pid, ...status.servers.map((s: { pid: number }) => s.pid)];
      expect(await waitAllNotRunning(pids, 3000)).toEqual([]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
