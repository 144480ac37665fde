// Bundles the status panel (src/renderer/main.ts) into dist/renderer/panel.js, MCP Apps' view
// host (ext-apps and its SDK, most of the weight) into mcp-app.js, which the panel loads by a
// script tag at the first "Open app" (src/renderer/mcpApp/mcpAppLoader.ts), and the view sandbox
// page's sandbox.js; copies index.html, panel.css and sandbox.html beside them. Each bundle is a
// classic IIFE script: ES modules (and so esbuild's code splitting) do not load from file://
// pages, and the page must also work when Electron loads it from disk.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Builds the panel into `outDir` (default `<repo>/dist/renderer`). Returns the output directory.
 * @param {{ outDir?: string, minify?: boolean }} [options]
 * @returns {Promise<string>}
 */
export async function buildRenderer(options = {}) {
  const outDir = resolve(options.outDir ?? join(root, 'dist/renderer'));
  mkdirSync(outDir, { recursive: true });
  /** @param {string} entry @param {string} out */
  const page = (entry, out) =>
    build({
      entryPoints: [join(root, entry)],
      outfile: join(outDir, out),
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: ['chrome120'],
      minify: options.minify ?? false,
      sourcemap: false,
      logLevel: 'warning',
      legalComments: 'none',
    });
  await page('src/renderer/main.ts', 'panel.js');
  await page('src/renderer/mcpApp/mcpAppBundle.ts', 'mcp-app.js');
  // The sandbox proxy page of MCP Apps views (served on the bridge's second origin: src/proxy/apps/sandboxServer.ts).
  await page('src/renderer/mcpApp/sandboxProxy.ts', 'sandbox.js');
  for (const file of ['index.html', 'panel.css', 'sandbox.html'])
    copyFileSync(join(root, 'src/renderer', file), join(outDir, file));
  return outDir;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await buildRenderer({ outDir: process.argv[2] });
}
