// src/index/: the package's public entries (package.json "exports"); nothing else is public.
/**
 * `qiming-mcp-runtime/panel`: the status panel, as built static files to load in a
 * `BrowserWindow` or an `<iframe>` ({@link panelDir}, {@link panelHtmlPath}; main process),
 * and as a function that mounts it into an element of the app's own page
 * ({@link mountPanel}; renderer, with the stylesheet `qiming-mcp-runtime/panel.css`).
 * No static Node import, so a bundler can take this module into a page.
 * @packageDocumentation
 */
import type { StatusSource } from '../renderer/dataSource.js';
import { chooseSource, startPanel } from '../renderer/startPanel.js';
import { mountMcpApp } from '../renderer/mcpApp/mountMcpApp.js';
import { setMcpAppLoader } from '../renderer/mcpApp/mcpAppLoader.js';

export type { StatusSource, ConnectionState } from '../renderer/dataSource.js';
export { mountMcpApp, VIEW_SANDBOX } from '../renderer/mcpApp/mountMcpApp.js';

// This entry carries the view host itself: a mounted panel's "Open app" uses it, no second file.
setMcpAppLoader(async () => mountMcpApp);
export type { McpAppView, McpAppHost, McpAppMessage } from '../renderer/mcpApp/mountMcpApp.js';
export type { AppViewEvent, AppViewResource, KeptAppView } from '../shared/appView.js';

/** The built panel's files in {@link panelDir}. */
export const PANEL_FILES = { html: 'index.html', script: 'panel.js', stylesheet: 'panel.css' } as const;

/** Where this module is (kept in a variable so bundlers do not take the folder for an asset). */
const here = import.meta.url;

/**
 * The absolute folder of the built panel (`index.html`, `panel.js`, `panel.css`). Main
 * process or Node only. Inside a packaged app it is in `app.asar`, which Electron reads.
 * @throws Error when the folder has no built panel (run the build).
 */
export function panelDir(): string {
  const { fileURLToPath, pathToFileURL } = process.getBuiltinModule('node:url');
  const { existsSync } = process.getBuiltinModule('node:fs');
  const { createRequire } = process.getBuiltinModule('node:module');
  // dist/index/panel.js -> dist/renderer; src/index/panel.ts (this repository's tests) -> dist/renderer.
  const dirs = ['../renderer/', '../../dist/renderer/'].map((rel) => fileURLToPath(new URL(rel, here)));
  // An app that bundled this module into its own file: the package as Node finds it from there.
  try {
    dirs.push(
      fileURLToPath(
        new URL('dist/renderer/', pathToFileURL(createRequire(here).resolve('qiming-mcp-runtime/package.json'))),
      ),
    );
  } catch {
    // not installed where the bundle is
  }
  const found = dirs.find((d) => existsSync(`${d}${PANEL_FILES.script}`));
  if (!found) throw new Error(`the built status panel was not found; looked in:\n  ${dirs.join('\n  ')}`);
  return found.replace(/[\\/]$/, '');
}

/** The panel page's absolute path: `win.loadFile(panelHtmlPath())`. Its `file://` URL is the `pageUrl` to trust. */
export function panelHtmlPath(): string {
  const { join } = process.getBuiltinModule('node:path');
  return join(panelDir(), PANEL_FILES.html);
}

export interface MountPanelOptions {
  /** Where the status comes from. Default: `window.mcpRuntime` (the preload API), else the bridge that served the page. */
  source?: StatusSource;
  /** The window whose preload API is used. Default: the element's. */
  window?: Window;
}

/**
 * Mounts the status panel into `element` (its content is replaced) and keeps it live.
 * The page needs the stylesheet (`qiming-mcp-runtime/panel.css`) and, for the default
 * source, a preload that called `exposeMcpRuntime()`. Returns the function that stops it.
 */
export function mountPanel(element: HTMLElement, options: MountPanelOptions = {}): () => void {
  const win = options.window ?? element.ownerDocument.defaultView ?? window;
  return startPanel(element, options.source ?? chooseSource(win));
}
