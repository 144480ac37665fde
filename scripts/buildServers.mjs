// Bundles the MCP servers the app ships by default (server-memory, server-filesystem) into
// one self-contained file each: dist/servers/memory.mjs and dist/servers/filesystem.mjs.
//
// Why bundle instead of shipping the packages in node_modules: the servers run as separate
// processes (`<app executable>` + ELECTRON_RUN_AS_NODE=1), so their files must sit outside
// app.asar (asarUnpack), and one file per server is one small unpacked file instead of a
// node_modules tree next to the archive. The packages stay devDependencies.
//
// Why ESM (.mjs) and not CJS: server-filesystem uses top-level await, which CJS cannot hold.
// Some of their dependencies are CommonJS and require() node built-ins, which esbuild's ESM
// output cannot do on its own, so the banner gives the bundle a real `require`.
import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The bundled servers: output name -> package whose `bin` is the entry point. */
export const BUNDLED_SERVERS = {
  memory: '@modelcontextprotocol/server-memory',
  filesystem: '@modelcontextprotocol/server-filesystem',
};

// (esbuild keeps the entry's own `#!` line above the banner.)
const REQUIRE_BANNER = [
  "import { createRequire as __qimingCreateRequire } from 'node:module';",
  'const require = __qimingCreateRequire(import.meta.url);',
].join('\n');

/**
 * The entry file of a server package: its only `bin`.
 * @param {string} pkgName
 */
function entryOf(pkgName) {
  const require = createRequire(join(root, 'package.json'));
  const pkgJson = require.resolve(`${pkgName}/package.json`);
  const pkg = require(pkgJson);
  const bin = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin ?? {})[0];
  if (!bin) throw new Error(`${pkgName} has no bin entry`);
  return join(dirname(pkgJson), bin);
}

/**
 * Bundles every server in {@link BUNDLED_SERVERS} into `outDir` (default `<repo>/dist/servers`).
 * Resolves to `{ <name>: <absolute path of the bundle> }`.
 * @param {{ outDir?: string }} [options]
 * @returns {Promise<Record<string, string>>}
 */
export async function buildServers(options = {}) {
  const outDir = resolve(options.outDir ?? join(root, 'dist/servers'));
  mkdirSync(outDir, { recursive: true });
  /** @type {Record<string, string>} */
  const out = {};
  await Promise.all(
    Object.entries(BUNDLED_SERVERS).map(async ([name, pkgName]) => {
      const outfile = join(outDir, `${name}.mjs`);
      await build({
        entryPoints: [entryOf(pkgName)],
        outfile,
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'esm',
        banner: { js: REQUIRE_BANNER },
        logLevel: 'warning',
        legalComments: 'none',
        sourcemap: false,
      });
      out[name] = outfile;
    }),
  );
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await buildServers({ outDir: process.argv[2] });
}
