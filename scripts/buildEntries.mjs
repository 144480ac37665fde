// The package's public entries (package.json "exports", sources in src/index/): ES modules in
// dist/index/ whose npm dependencies stay imports (they are the package's "dependencies"),
// the preload entry also as CommonJS (preload scripts are usually CommonJS), and the .d.ts
// generated from the sources by tsc into dist/types/ (tsconfig.declarations.json, incremental).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_ALIASES } from './buildProxy.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The entry names, as in "exports" (`qiming-mcp-runtime/<name>`). */
export const ENTRY_NAMES = ['main', 'preload', 'panel', 'cli', 'shared'];

const require = createRequire(import.meta.url);

/**
 * The packages of BUNDLE_ALIASES go into the entries, from their ES module build and only what
 * is used (their modules have no side effects): left as imports, an app that bundles its main
 * process would bundle their UMD file, which fails at run time.
 * @type {import('esbuild').Plugin}
 */
const bundleAliased = {
  name: 'bundle-aliased',
  setup(b) {
    for (const [name, target] of Object.entries(BUNDLE_ALIASES)) {
      const exact = new RegExp(`^${name.replace(/[^\w-]/g, '\\$&')}$`);
      b.onResolve({ filter: exact }, () => ({ path: require.resolve(target), sideEffects: false }));
    }
  },
};

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  // zod, chokidar, the SDKs... are the package's dependencies; electron is the app's.
  packages: 'external',
  plugins: [bundleAliased],
  external: ['electron'],
  target: 'node20',
  define: { __QIMING_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
  legalComments: 'none',
};

/** Builds dist/index/<name>.js for every entry, and dist/index/preload.cjs. */
export async function buildEntries() {
  await Promise.all([
    build({
      ...common,
      entryPoints: Object.fromEntries(ENTRY_NAMES.map((n) => [n, join(root, 'src/index', `${n}.ts`)])),
      outdir: join(root, 'dist/index'),
      // `neutral`: the panel and shared entries also go into pages; the others import node:* explicitly.
      platform: 'neutral',
      format: 'esm',
      outExtension: { '.js': '.js' },
    }),
    build({
      ...common,
      entryPoints: [join(root, 'src/index/preload.ts')],
      outfile: join(root, 'dist/index/preload.cjs'),
      platform: 'node',
      format: 'cjs',
    }),
  ]);
}

/** tsc --emitDeclarationOnly over src/index (and what it reaches) into dist/types. */
export function buildDeclarations() {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.declarations.json')], {
    cwd: root,
    stdio: 'inherit',
  });
}
