/**
 * The status window's preload (sandboxed, context-isolated): exposes the typed API of
 * preloadApi.ts as `window.mcpRuntime`, never `ipcRenderer` itself.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { MCP_RUNTIME_GLOBAL } from '../../shared/ipcContract.js';
import { createPreloadApi } from './preloadApi.js';

contextBridge.exposeInMainWorld(MCP_RUNTIME_GLOBAL, createPreloadApi(ipcRenderer));
