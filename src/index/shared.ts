// src/index/: the package's public entries (package.json "exports"); nothing else is public.
/**
 * `qiming-mcp-runtime/shared`: the status and IPC contract, for every process (main,
 * preload, the app's pages). Types and constants only: no Node module, no electron.
 * @packageDocumentation
 */
export type {
  ServerState,
  ServerTransport,
  ToolSummary,
  ServerStatus,
  BridgeState,
  RuntimeStatus,
  ToolExposureSetting,
  ToolEconomyStatus,
  EconomySessionStatus,
  AgentSessionStatus,
} from '../shared/status.js';
export { IPC_CHANNEL_PREFIX, IPC_CHANNELS, MCP_RUNTIME_GLOBAL } from '../shared/ipcContract.js';
export type { RestartResult, McpRuntimeApi, ManagementIpcApi, ConfigGetResult } from '../shared/ipcContract.js';
export { MANAGEMENT_CHANNELS } from '../shared/ipcContract.js';
export { SECRET_MASK } from '../shared/configContract.js';
export type * from '../shared/configContract.js';
export { INSTALL_CHANNELS } from '../shared/ipcContract.js';
export { MAX_BUNDLE_BYTES } from '../shared/install.js';
export type * from '../shared/install.js';
