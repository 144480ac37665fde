// ESLint (flat config): typescript-eslint's recommended rules, plus the layering rules that
// keep the four runtimes apart (docs/ARCHITECTURE.md, "Layers and their rules").
// tests/lint/eslintConfig.test.ts proves each boundary rule still fires on an offending line.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import globals from 'globals';

/** Static, dynamic and require() imports of the given modules (subpaths included) are errors. */
function forbidModules(names, why) {
  // The names are plain package names (letters and '-'), so they need no escaping.
  const alternatives = names.join('|');
  const re = `/^(${alternatives})(\\u002F|$)/`; // esquery regex: no literal '/' inside
  return {
    paths: [],
    patterns: [{ regex: `^(${alternatives})(/.*)?$`, message: why }],
    syntax: [
      { selector: `ImportExpression[source.value=${re}]`, message: why },
      { selector: `CallExpression[callee.name='require'][arguments.0.value=${re}]`, message: why },
    ],
  };
}

const proxyStdout = 'src/proxy writes to stdout only through the protocol writer (stdio/stdioServerTransport.ts).';
/** Any use of process.stdout, except `const readyOut = process.stdout` where a file is allowed one. */
const stdoutUse = (allowReadyOut) => ({
  selector: allowReadyOut
    ? "MemberExpression[object.name='process'][property.name='stdout']:not(VariableDeclarator[id.name='readyOut'] > MemberExpression)"
    : "MemberExpression[object.name='process'][property.name='stdout']",
  message: proxyStdout,
});
const consoleToStdout = ['log', 'info', 'debug', 'table', 'dir'].map((property) => ({
  object: 'console',
  property,
  message: proxyStdout,
}));

const electronForbidden = forbidModules(
  ['electron', 'electron-log'],
  'src/proxy is pure Node: no electron, no electron-log.',
);
const electronOutsideWiring = forbidModules(['electron'], 'Only src/main/electron/ imports electron.');
const entryElectron = forbidModules(
  ['electron', 'electron-log'],
  'The public entries never load electron or electron-log (the app passes its objects in); only preload.ts may require electron, lazily.',
);
const appEntriesOnly =
  "src/main/electron (this repository's app) imports only the package's public entries (src/index/), never deeper modules.";
const rendererForbidden = forbidModules(
  ['electron', 'electron-log'],
  'src/renderer and src/shared run in the page: no electron, no Node.',
);

/** src/proxy's own layer: no other src layer but src/shared. */
const proxyOwnLayer = {
  target: './src/proxy',
  from: ['./src/main', './src/renderer', './src/index'],
  message: 'src/proxy imports no other src layer but src/shared.',
};

/** Code lines (blank and comment lines not counted) past which a file in src/ is flagged as likely holding two ideas. */
const SRC_CODE_LINES_GUIDE = 500;

const resolver = createNodeResolver({
  extensions: ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json', '.node'],
  extensionAlias: { '.js': ['.ts', '.js'], '.mjs': ['.mts', '.mjs'], '.cjs': ['.cts', '.cjs'] },
});

/** A layer that runs in the page: no Node modules, no electron, and none of the `from` folders. */
function browserLayer(dir, from, message) {
  return {
    files: [`${dir}/**`],
    rules: {
      'no-restricted-imports': ['error', { paths: rendererForbidden.paths, patterns: rendererForbidden.patterns }],
      'no-restricted-syntax': ['error', ...rendererForbidden.syntax],
      'import-x/no-nodejs-modules': 'error',
      'import-x/no-restricted-paths': ['error', { zones: [{ target: `./${dir}`, from, message }] }],
    },
  };
}

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'release/**',
      'out/**',
      'build/**',
      'node_modules/**',
      'bench/results/**',
      'coverage/**',
      '.vitest-tmp/**',
      // Binaries the tests fetch or unpack (Node 22, the agents' packages): gitignored.
      '.cache/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [resolver],
      // Without these import-x does not read .ts files, and no-cycle finds nothing.
      'import-x/extensions': ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.mts', '.cts'] },
    },
  },
  {
    rules: {
      // `_name` marks a parameter or binding kept on purpose (a signature, a dropped field).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // `const self = this` for a named inner function that must refer to itself (upstream.ts whenSettled).
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['self'] }],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests and benchmarks read loosely typed JSON, and write terse `(a(), b())` loop bodies.
    files: ['tests/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-unused-expressions': 'off' },
  },
  {
    // Matching control characters is what these regular expressions are for.
    files: [
      'src/proxy/common/printable.ts',
      'tests/proxy/upstream/upstreamStdoutGarbage.test.ts',
      'tests/proxy/cli/cliLogging.test.ts',
    ],
    rules: { 'no-control-regex': 'off' },
  },
  {
    files: ['src/renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      // No import cycles anywhere in src/ (value imports; type-only imports are not followed by the rule).
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // A guide, not a gate: a file far past ~500 code lines usually holds two ideas, so it is
      // flagged for a look; it is split along a real seam or left whole, never cut to fit.
      'max-lines': ['warn', { max: SRC_CODE_LINES_GUIDE, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['src/proxy/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: electronForbidden.paths, patterns: electronForbidden.patterns }],
      'no-restricted-syntax': ['error', ...electronForbidden.syntax, stdoutUse(false)],
      'no-restricted-properties': ['error', ...consoleToStdout],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [proxyOwnLayer],
        },
      ],
    },
  },
  {
    // The protocol layer (docs/protocol-eras.md): the revisions and their crossings sit below
    // the bridge, the modes and the CLI that run them.
    files: ['src/proxy/protocol/**'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            proxyOwnLayer,
            {
              target: './src/proxy/protocol',
              from: ['./src/proxy/bridge', './src/proxy/modes', './src/proxy/cli'],
              message:
                'src/proxy/protocol sits below the bridge, the modes and the CLI: they import it, never the reverse.',
            },
          ],
        },
      ],
    },
  },
  {
    // ...and above the JSON-RPC layer, the shared helpers and the config, which never import it.
    files: ['src/proxy/jsonrpc/**', 'src/proxy/common/**', 'src/proxy/config/**'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            proxyOwnLayer,
            {
              target: ['./src/proxy/jsonrpc', './src/proxy/common', './src/proxy/config'],
              from: './src/proxy/protocol',
              message: 'src/proxy/jsonrpc, common and config sit below src/proxy/protocol: they never import it.',
            },
          ],
        },
      ],
    },
  },
  {
    // The protocol writer: the downstream transport's default output is process.stdout.
    files: ['src/proxy/stdio/stdioServerTransport.ts'],
    rules: { 'no-restricted-syntax': ['error', ...electronForbidden.syntax] },
  },
  {
    // The bridge's one ready line goes to stdout through the `readyOut` alias, and nowhere else.
    files: ['src/proxy/modes/bridgeMode.ts'],
    rules: { 'no-restricted-syntax': ['error', ...electronForbidden.syntax, stdoutUse(true)] },
  },
  {
    files: ['src/main/**'],
    ignores: ['src/main/electron/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: electronOutsideWiring.paths, patterns: electronOutsideWiring.patterns },
      ],
      'no-restricted-syntax': ['error', ...electronOutsideWiring.syntax],
    },
  },
  {
    files: ['src/main/**'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './src/main', from: ['./src/renderer'], message: 'src/main does not import the renderer.' },
            {
              target: './src/main',
              from: './src/proxy',
              except: ['./index.ts'],
              message: 'src/main reaches the proxy only through src/proxy/index.ts.',
            },
            {
              target: './src/main',
              from: './src/index',
              message:
                'The public entries (src/index/) sit above src/main: only the app (src/main/electron/) imports them.',
            },
          ],
        },
      ],
    },
  },
  {
    // This repository's app is the package's first consumer: the public entries and npm modules only.
    files: ['src/main/electron/**'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/main/electron',
              from: './src',
              except: ['./index', './main/electron'],
              message: appEntriesOnly,
            },
          ],
        },
      ],
    },
  },
  {
    // The public entries (package.json "exports"): re-exports and thin helpers; never electron at load time.
    files: ['src/index/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: entryElectron.paths, patterns: entryElectron.patterns }],
      'no-restricted-syntax': ['error', ...entryElectron.syntax],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './src/index', from: './src/proxy', message: 'The entries reach the proxy through src/main.' },
          ],
        },
      ],
    },
  },
  {
    // The preload entry may require('electron') lazily, when the app passes no contextBridge.
    files: ['src/index/preload.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...entryElectron.syntax.filter((r) => !r.selector.startsWith('CallExpression')),
      ],
    },
  },
  {
    // The page-side entries: no Node module at load time (panelDir() takes node:* with process.getBuiltinModule).
    files: ['src/index/panel.ts', 'src/index/shared.ts'],
    rules: {
      'import-x/no-nodejs-modules': 'error',
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/index',
              from: ['./src/proxy', './src/main'],
              message: 'The page-side entries import only src/renderer and src/shared.',
            },
          ],
        },
      ],
    },
  },
  // Shared by every runtime, the page included: no Node, no electron, no other layer.
  browserLayer(
    'src/shared',
    ['./src/proxy', './src/main', './src/renderer', './src/index'],
    'src/shared imports no other layer.',
  ),
  browserLayer('src/renderer', ['./src/proxy', './src/main', './src/index'], 'src/renderer imports only src/shared.'),
);
