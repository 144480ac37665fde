// The proxy CLI as a few CJS files in dist/proxy, so that each start reads and compiles only
// what its mode runs (docs/ARCHITECTURE.md, "Start-up cost"). Each file of PROXY_FILES owns
// the modules its entries reach that no earlier file owns; an import of a module another file
// owns becomes a stub that takes that file's instance of it (one instance per process: classes,
// `instanceof` and module state stay shared). A later file's entries must be reached with
// `await import()`: a static import of one from an earlier file fails the build, since it would
// load that file at start. The SDK's SSE transports and OAuth client stay in their own file.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * In load order; the first is the CLI. `entries`: the modules other files reach it by.
 * @type {{ file: string; entries: string[]; what: string }[]}
 */
export const PROXY_FILES = [
  {
    file: 'qiming-mcp-stdio-proxy.cjs',
    entries: ['src/proxy/cli/main.ts'],
    what: 'the command line, --help and --version',
  },
  {
    file: 'qiming-mcp-core.cjs',
    entries: ['src/proxy/modes/stdioMode.ts'],
    what: 'stdio mode, and the hub, upstreams and config every mode runs',
  },
  { file: 'qiming-mcp-convert.cjs', entries: ['src/proxy/modes/convertMode.ts'], what: 'convert mode' },
  { file: 'qiming-mcp-bridge.cjs', entries: ['src/proxy/modes/bridgeMode.ts'], what: 'the HTTP bridge (proxy mode)' },
  {
    file: 'qiming-mcp-process.cjs',
    entries: ['src/proxy/process/childProcessTransport.ts'],
    what: 'stdio servers as child processes, for the first one',
  },
  {
    file: 'qiming-mcp-http-client.cjs',
    entries: ['src/proxy/upstream/leanHttpClientTransport.ts'],
    what: 'the streamable HTTP client, for the first remote server that uses it',
  },
  {
    file: 'qiming-mcp-oauth.cjs',
    entries: ['src/proxy/oauth/serverAuth.ts', 'src/proxy/oauth/browserOpener.ts', 'src/proxy/oauth/tokenSecrets.ts'],
    what: 'the OAuth sign-in flow and its tokens in the secret store, for the first server that may sign in',
  },
  {
    file: 'qiming-mcp-config-edit.cjs',
    entries: [
      'src/proxy/bridge/configRoutes.ts',
      'src/proxy/cli/defaultBridgeConfig.ts',
      'src/proxy/config/approvalRemember.ts',
    ],
    what: "the panel's management routes (config editing and import, logs, tool tests) and the headless bridge's default config",
  },
  {
    file: 'qiming-mcp-install.cjs',
    entries: ['src/proxy/install/installRoutes.ts'],
    what: 'installing servers from the MCP Registry and from .mcpb bundles (registry client, ajv, yauzl), from /install/*',
  },
  {
    file: 'qiming-mcp-activity.cjs',
    entries: ['src/proxy/activity/openRecorders.ts', 'src/proxy/bridge/activityRoute.ts'],
    what: 'the activity log (ring, health figures, JSONL file) and its /activity routes, when the log is on',
  },
  {
    file: 'qiming-mcp-tracing.cjs',
    entries: ['src/proxy/tracing/requestTracer.ts'],
    what: 'OpenTelemetry traces of requests (the SDK, the OTLP/HTTP exporter), when tracing is on',
  },
  {
    file: 'qiming-mcp-sandbox.cjs',
    entries: ['src/proxy/sandbox/sandboxLaunch.ts'],
    what: "the sandbox of a stdio server (bubblewrap, Seatbelt, the filtering proxy, npx's fetch step), for the first sandboxed one",
  },
  {
    file: 'qiming-mcp-login-shell.cjs',
    entries: ['src/proxy/process/loginShellEnv.ts', 'src/proxy/process/toolFolders.ts'],
    what: "the login shell's PATH, read when a command is not on PATH",
  },
  {
    file: 'qiming-mcp-tool-economy.cjs',
    entries: [
      'src/proxy/hub/economy/metaTools.ts',
      'src/proxy/hub/economy/loadedReport.ts',
      'src/proxy/bridge/agentLoadedTools.ts',
    ],
    what: "an aggregate's meta-tools (search_tools, call_tool), its list in search mode, and the reports of the tools an agent's proxy loaded, both ends",
  },
  {
    file: 'qiming-mcp-agent-arrivals.cjs',
    entries: ['src/proxy/bridge/agentArrivals.ts', 'src/proxy/bridge/agentSessions.ts'],
    what: "which ACP sessions' connections reached the bridge (/agents/arrivals, the status's agent sessions), from the first connection or request about one",
  },
  {
    file: 'qiming-mcp-tool-search.cjs',
    entries: ['src/proxy/hub/economy/toolSearch.ts'],
    what: "tool search (minisearch), for an aggregate's first search_tools",
  },
  {
    file: 'qiming-mcp-pinning.cjs',
    entries: ['src/proxy/pinning/pinGate.ts'],
    what: "tool pinning's check (canonical definitions, hashes, the pin files), for the first tool list it checks",
  },
  {
    file: 'qiming-mcp-secrets.cjs',
    entries: [
      'src/proxy/secrets/launchSecrets.ts',
      'src/proxy/secrets/openSecretStore.ts',
      'src/proxy/secrets/draftSecrets.ts',
      'src/proxy/secrets/importSecrets.ts',
    ],
    what: "the secret store (the OS keychain or the app's), for the first ${secret:...} or the panel's first secret",
  },
  {
    file: 'qiming-mcp-result-store.cjs',
    entries: ['src/proxy/hub/economy/resultStore.ts'],
    what: "the cut of a tool result over maxResultBytes and the store it is read back from, for an aggregate's first cut",
  },
  {
    file: 'qiming-mcp-approval.cjs',
    entries: ['src/proxy/hub/approval/approvalGate.ts', 'src/proxy/hub/policyRefusal.ts'],
    what: 'the approval policy on tool calls (rules, asking the app or the client), for the first tool call; a refusal by any policy, for the first',
  },
  {
    file: 'qiming-mcp-apps.cjs',
    entries: ['src/proxy/apps/bridgeApps.ts', 'src/proxy/apps/appRoutes.ts'],
    what: "MCP Apps views: what the bridge keeps of calls with a view, its /apps routes and the sandbox origin, after the bridge's start",
  },
];

/**
 * Packages bundled from their ES module build: jsonc-parser's `main` is a UMD file whose
 * `require`s esbuild cannot follow (the bundle would require `./impl/format` at run time).
 */
export const BUNDLE_ALIASES = { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' };

/** The SDK's SSE transports and OAuth client: a require of the file built beside the CLI. */
const SDK_SIDE = /^@modelcontextprotocol\/sdk\/((client|server)\/sse|client\/auth)\.js$/;
const SDK_SIDE_FILE = 'qiming-mcp-sdk-sse.cjs';
/**
 * Native modules, which no bundle can hold: required from node_modules at run time (the npm
 * package declares them; electron-builder.yml unpacks them from the asar), on first use only.
 */
export const NATIVE = /^@napi-rs\/keyring(\/.*)?$/;
const STUB = 'qiming-proxy-stub';
const REGISTRY = 'qiming-proxy-registry';

/**
 * @param {string} root
 * @param {{ define: Record<string, string> }} opts
 */
export async function buildProxy(root, { define }) {
  const outDir = join(root, 'dist/proxy');
  const key = (/** @type {string} */ abs) => relative(root, abs).split('\\').join('/');
  const entryOwner = new Map(PROXY_FILES.flatMap((f, i) => f.entries.map((e) => [e, i])));
  /** @type {Map<string, number>} module key -> index of the file that owns it */
  const owner = new Map();
  /** @type {Set<string>[]} per file: its modules that other files take */
  const taken = PROXY_FILES.map(() => new Set());
  /** @type {Map<string, string[]>} module key -> its export names (known after pass 1) */
  const exportNames = new Map();

  /** @param {number} self @param {boolean} write */
  const buildFile = (self, write) => {
    const f = PROXY_FILES[self];
    const isCli = self === 0;
    /** @type {import('esbuild').Plugin} */
    const split = {
      name: 'qiming-proxy-split',
      setup(b) {
        b.onResolve({ filter: SDK_SIDE }, () => ({ path: `./${SDK_SIDE_FILE}`, external: true }));
        b.onResolve({ filter: NATIVE }, (args) => ({ path: args.path, external: true }));
        b.onResolve({ filter: /^qiming-proxy-registry$/ }, () => ({ path: REGISTRY, namespace: REGISTRY }));
        b.onResolve({ filter: /.*/ }, async (args) => {
          if (
            args.pluginData?.inner ||
            args.namespace !== 'file' ||
            args.kind === 'entry-point' ||
            args.path.startsWith('node:')
          )
            return undefined;
          const r = await b.resolve(args.path, {
            kind: args.kind,
            importer: args.importer,
            resolveDir: args.resolveDir,
            pluginData: { inner: true },
          });
          if (r.errors.length || r.external || !r.path) return r.errors.length ? { errors: r.errors } : undefined;
          const k = key(r.path);
          const o = owner.get(k) ?? entryOwner.get(k);
          if (o === undefined || o === self) return { path: r.path, sideEffects: r.sideEffects };
          return { path: k, namespace: STUB, pluginData: { owner: o } };
        });
        b.onLoad({ filter: /.*/, namespace: STUB }, (args) => {
          const o = /** @type {number} */ (args.pluginData.owner);
          taken[o].add(args.path);
          const rootRegistry = isCli
            ? `require(${JSON.stringify(REGISTRY)})`
            : `require(${JSON.stringify(REGISTRY)}).root()`;
          const from =
            o === 0 ? rootRegistry : `require(${JSON.stringify(`./${PROXY_FILES[o].file}`)}).link(${rootRegistry})`;
          const take = `${from}.get(${JSON.stringify(args.path)})`;
          const names = exportNames.get(args.path);
          // Known names (pass 2): plain bindings, which the importers use as directly as their own
          // (no getter per use, on a hot path either); the owner's module has run by then, and its
          // exports are never reassigned after (none of ours are). Pass 1 needs no names.
          if (!names) return { contents: `module.exports = ${take};`, loader: 'js', resolveDir: outDir };
          const lines = [
            `const m = ${take};`,
            ...names.map((n, i) => `const e${i} = m[${JSON.stringify(n)}];\nexport { e${i} as ${JSON.stringify(n)} };`),
          ];
          return { contents: lines.join('\n'), loader: 'js', resolveDir: outDir };
        });
        b.onResolve({ filter: /^\.\/qiming-mcp-[a-z-]+\.cjs$/ }, (args) => ({ path: args.path, external: true }));
        b.onLoad({ filter: /.*/, namespace: REGISTRY }, () => {
          // One function for the file: `get` runs a few dozen times per process.
          const cases = [...new Set([...(isCli ? [] : f.entries), ...taken[self]])]
            .sort()
            .map((k) => `      case ${JSON.stringify(k)}: return require(${JSON.stringify(join(root, k))});`);
          const contents = [
            `const self = {`,
            `  link: (r) => (root ??= r, self),`,
            `  root: () => root,`,
            `  get(k) {`,
            `    switch (k) {`,
            ...cases,
            `      default: throw new Error(${JSON.stringify(`${f.file} has no module `)} + k);`,
            `    }`,
            `  },`,
            `};`,
            `let root${isCli ? ' = self' : ''};`,
            `module.exports = self;`,
          ];
          return { contents: contents.join('\n'), loader: 'js', resolveDir: root };
        });
        if (!isCli) {
          b.onResolve({ filter: /^qiming-proxy-side$/ }, () => ({ path: 'side', namespace: 'qiming-proxy-side' }));
          b.onLoad({ filter: /.*/, namespace: 'qiming-proxy-side' }, () => ({
            contents: `module.exports = require(${JSON.stringify(REGISTRY)});`,
            loader: 'js',
            resolveDir: root,
          }));
        }
      },
    };
    return build({
      entryPoints: isCli ? [join(root, f.entries[0])] : ['qiming-proxy-side'],
      outfile: join(outDir, f.file),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      banner: isCli ? { js: '#!/usr/bin/env node' } : undefined,
      define,
      logLevel: 'warning',
      legalComments: 'none',
      metafile: true,
      write,
      absWorkingDir: root,
      alias: BUNDLE_ALIASES,
      plugins: [split],
    });
  };
  // Pass 1, in order: who owns what, and which modules each file's stubs take from another.
  for (let i = 0; i < PROXY_FILES.length; i++) {
    const { metafile } = await buildFile(i, false);
    for (const [k, input] of Object.entries(metafile.inputs)) {
      if (k.startsWith('qiming-proxy-')) continue;
      if (!owner.has(k)) owner.set(k, i);
      for (const imp of input.imports) {
        if (!imp.path.startsWith(`${STUB}:`) || imp.kind === 'dynamic-import') continue;
        const o = owner.get(imp.path.slice(STUB.length + 1)) ?? entryOwner.get(imp.path.slice(STUB.length + 1));
        if (o !== undefined && o > i) {
          throw new Error(
            `${k} imports ${imp.path.slice(STUB.length + 1)} statically, which would load ${PROXY_FILES[o].file} whenever ${PROXY_FILES[i].file} loads: use \`await import()\` where it is first needed (scripts/buildProxy.mjs)`,
          );
        }
      }
    }
  }
  // The export names of every module a stub takes, for pass 2's stubs; none for a module with an
  // `export * from` (its names are not all in the metafile): its stub stays `module.exports = ...`.
  await Promise.all(
    [...new Set(taken.flatMap((t) => [...t]))].map(async (k) => {
      if (/^\s*export\s*\*\s*from/m.test(readFileSync(join(root, k), 'utf8'))) return;
      const r = await build({
        entryPoints: [join(root, k)],
        bundle: true,
        write: false,
        metafile: true,
        format: 'esm',
        platform: 'node',
        logLevel: 'silent',
        outdir: outDir,
        absWorkingDir: root,
        plugins: [
          {
            name: 'only-this-module',
            setup: (b) =>
              b.onResolve({ filter: /.*/ }, (a) =>
                a.kind === 'entry-point' ? undefined : { path: a.path, external: true },
              ),
          },
        ],
      });
      const out = Object.values(r.metafile.outputs).find((o) => o.entryPoint);
      if (!out) throw new Error(`no output for ${k}`);
      exportNames.set(k, out.exports);
    }),
  );
  // Pass 2: the files, each with a registry of the modules others take from it.
  const results = await Promise.all(PROXY_FILES.map((_, i) => buildFile(i, true)));
  return { owner, results };
}
