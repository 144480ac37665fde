// src/index/: the package's public entries (package.json "exports"); nothing else is public.
/**
 * `qiming-mcp-runtime/preload`: for the preload script of a window that shows the MCP
 * status (the package's panel, or the app's own page): one call exposes the typed API
 * ({@link McpRuntimeApi}) as `window.mcpRuntime`, never `ipcRenderer` itself.
 * @packageDocumentation
 */
import { createPreloadApi, type IpcRendererLike } from '../main/app/preloadApi.js';
import { MCP_RUNTIME_GLOBAL, type McpRuntimeApi } from '../shared/ipcContract.js';

export { createPreloadApi, type IpcRendererLike } from '../main/app/preloadApi.js';
export type { McpRuntimeApi, RestartResult } from '../shared/ipcContract.js';
export type { RuntimeStatus, ServerStatus } from '../shared/status.js';

/** The part of Electron's `contextBridge` used here. */
export interface ContextBridgeLike {
  exposeInMainWorld(apiKey: string, api: unknown): void;
}

/** Electron's `contextBridge` and `ipcRenderer`, as `import { contextBridge, ipcRenderer } from 'electron'` gives them. */
export interface PreloadElectron {
  contextBridge: ContextBridgeLike;
  ipcRenderer: IpcRendererLike;
}

/**
 * Exposes the API as `window.mcpRuntime` (`MCP_RUNTIME_GLOBAL`) with `contextBridge` and
 * returns it. Pass `{ contextBridge, ipcRenderer }` from electron; without them the CommonJS
 * build (`require('qiming-mcp-runtime/preload')`) requires electron itself.
 * @throws Error when electron is not given and cannot be required (the ES module build).
 */
export function exposeMcpRuntime(electron?: PreloadElectron): McpRuntimeApi {
  const { contextBridge, ipcRenderer } = electron ?? requireElectron();
  const api = createPreloadApi(ipcRenderer);
  contextBridge.exposeInMainWorld(MCP_RUNTIME_GLOBAL, api);
  return api;
}

/** Only here, only when asked: the one place of the package that loads electron. */
function requireElectron(): PreloadElectron {
  const refuse = () =>
    new Error("exposeMcpRuntime: pass { contextBridge, ipcRenderer } from 'electron' (they cannot be required here)");
  if (typeof require !== 'function') throw refuse();
  let electron: Partial<PreloadElectron> | undefined;
  try {
    // The ES module build has only a stand-in `require` that throws: same answer as no electron.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    electron = require('electron') as Partial<PreloadElectron>;
  } catch {
    throw refuse();
  }
  // Outside a preload (plain Node) the electron package exports a path, not these objects.
  if (typeof electron?.contextBridge?.exposeInMainWorld !== 'function' || !electron.ipcRenderer) throw refuse();
  return electron as PreloadElectron;
}
