/**
 * The status window's preload (sandboxed, context-isolated): exposes the typed panel API as
 * `window.mcpRuntime` through the package's public preload entry, never `ipcRenderer` itself.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { exposeMcpRuntime } from '../../index/preload.js';

exposeMcpRuntime({ contextBridge, ipcRenderer });
