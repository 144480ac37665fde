// Bundles the proxy CLI (a few files in dist/proxy, runs with plain node >= 20, no node_modules beside it),
// the Electron main process, the preload script, the status panel page, and the package's
// public entries (dist/index, with their declarations in dist/types).
import { build } from 'esbuild';
import { buildEntries, buildDeclarations } from './buildEntries.mjs';
import { buildRenderer } from './buildRenderer.mjs';
import { buildServers } from './buildServers.mjs';
import { BUNDLE_ALIASES, buildProxy } from './buildProxy.mjs';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const define = { __QIMING_VERSION__: JSON.stringify(pkg.version) };
const only = process.argv[2];

const targets = {
  // The CLI: CJS files in dist/proxy, one per part that a start may need (buildProxy.mjs), plus
  // the SDK's SSE transports and OAuth client in a file of their own, required on first use
  // (src/proxy/common/sdkSse.ts says why).
  proxy: () =>
    Promise.all([
      buildProxy(root, { define }),
      build({
        entryPoints: [join(root, 'src/proxy/common/sdkSse.ts')],
        outfile: join(root, 'dist/proxy/qiming-mcp-sdk-sse.cjs'),
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'cjs',
        logLevel: 'warning',
        legalComments: 'none',
      }),
    ]),
  // Electron main (dist/main/main.cjs, package.json "main"). electron stays external; chokidar 5
  // (ESM-only) and the rest are bundled into the CJS file. `import.meta.url` (used by modules
  // that also run as ESM in tests) is given its CJS value.
  main: () =>
    build({
      entryPoints: [join(root, 'src/main/electron/main.ts')],
      outfile: join(root, 'dist/main/main.cjs'),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      external: ['electron'],
      alias: BUNDLE_ALIASES,
      banner: { js: "const __qimingImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
      define: { ...define, 'import.meta.url': '__qimingImportMetaUrl' },
      logLevel: 'warning',
      legalComments: 'none',
    }),
  // The status window's preload: sandboxed, so one CJS file requiring only electron.
  preload: () =>
    build({
      entryPoints: [join(root, 'src/main/electron/preload.ts')],
      outfile: join(root, 'dist/main/preload.cjs'),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      external: ['electron'],
      logLevel: 'warning',
      legalComments: 'none',
    }),
  renderer: () => buildRenderer(),
  // The default MCP servers the app ships, one bundled file each (see buildServers.mjs).
  servers: () => buildServers(),
  // The package's entries (package.json "exports") and their .d.ts (see buildEntries.mjs).
  index: () => buildEntries(),
  types: () => buildDeclarations(),
};

for (const [name, run] of Object.entries(targets)) {
  if (only && only !== name) continue;
  await run();
}
