// src/index/: the package's public entries (package.json "exports"); nothing else is public.
/**
 * `qiming-mcp-runtime/main`: everything the app's main process (or plain Node) uses. Never
 * imports electron: Electron's objects are passed to {@link attachToApp} as arguments.
 * @packageDocumentation
 */
export { McpRuntime, DEFAULT_BACKOFF } from '../main/runtime/mcpRuntime.js';
export type {
  McpRuntimeOptions,
  BridgeInfo,
  StartupProgress,
  RuntimeEvents,
  BackoffOptions,
} from '../main/runtime/mcpRuntime.js';
export type { AppViewEvent } from '../shared/appView.js';
export { nodeCommand, isElectron, resolveProxyCliPath, type NodeCommand } from '../main/runtime/cliPath.js';
export { adoptLoginPath } from '../main/runtime/loginEnv.js';
export { externalUrl } from '../main/runtime/externalUrl.js';

export { AcpEngine, type AcpEngineOptions, type AcpRuntimeLike } from '../main/acp/acpEngine.js';
export {
  acpMcpServers,
  agentTags,
  bridgeUpstream,
  DEFAULT_ENTRY_NAME,
  entryPlan,
  perServerEntries,
  type AcpMcpServersOptions,
  type EntryPlan,
  type EntryTransport,
} from '../main/acp/acp.js';
export { agentProfile, AGENT_START_ENV, type AgentProfile, type KnownAgent } from '../main/acp/agentProfiles.js';

export { LogTail, type LogTailOptions, type TailEntry } from '../main/logs/logTail.js';
export type { EntryLevel } from '../main/logs/logEntryParser.js';
export {
  createElectronLogSink,
  forwardToElectronLog,
  type ElectronLogLike,
  type ElectronLogMessage,
  type ElectronLogSinkOptions,
} from '../main/logs/logForwarder.js';
export {
  proxyLogFilePath,
  rotateIfLarge,
  PROXY_LOG_FILE_NAME,
  DEFAULT_PROXY_LOG_MAX_BYTES,
} from '../main/logs/logPaths.js';
export { silentLogger, stderrLogger, type RuntimeLogger } from '../main/logs/runtimeLogger.js';

export {
  defaultMcpConfig,
  runtimeVars,
  RUNTIME_VAR_NAMES,
  type RuntimeVarsOptions,
} from '../main/config/defaultMcpConfig.js';
export { ensureUserConfig, CONFIG_FILE_NAME } from '../main/config/ensureUserConfig.js';
export { ConfigWatcher, type ConfigWatcherOptions } from '../main/config/configWatcher.js';
export { readUserConfig, type UserConfigView } from '../main/config/userConfig.js';
export { ManagementService, type ManagementServiceOptions } from '../main/config/managementService.js';
export { AgentSelectionStore, selectServers, KNOWN_AGENTS, type ServerPlan } from '../main/config/agentSelection.js';
export { registerManagementHandlers } from '../main/app/managementIpc.js';
export { registerInstallHandlers } from '../main/app/installIpc.js';
export { registerAppViewHandlers } from '../main/app/appViewIpc.js';
export { AppViewService, type AppViewServiceOptions } from '../main/app/appViewService.js';
export {
  APP_VIEW_SCHEME,
  APP_VIEW_SANDBOX_URL,
  privilegeAppViewScheme,
  serveAppViewScheme,
  type ProtocolLike,
} from '../main/app/appViewProtocol.js';
export { InstallService, type InstallServiceOptions } from '../main/install/installService.js';
export { bundlePathsIn, isBundlePath } from '../main/install/bundleFiles.js';
export { askWithDialog, approvalBox, APPROVAL_BUTTONS, type DialogLike } from '../main/app/approvalDialog.js';
export { oauthStoreKey, OAUTH_DIR_ENV, OAUTH_KEY_ENV, type SafeStorageLike } from '../main/config/oauthStoreKey.js';
export { appSecretEnv, appSecretStore } from '../main/config/appSecrets.js';

export {
  attachToApp,
  type AttachToAppOptions,
  type AttachedApp,
  type AttachableRuntime,
  type ElectronAppLike,
  type StatusTargetLike,
  type Stoppable,
} from '../main/app/attachToApp.js';
export {
  installQuitSequence,
  type QuitSequence,
  type QuitSequenceOptions,
  type AppLike,
  type PowerMonitorLike,
  type PreventableEvent,
} from '../main/app/quitSequence.js';
export {
  registerIpcHandlers,
  isTrustedSender,
  type IpcMainLike,
  type IpcInvokeEventLike,
  type SenderFrameLike,
  type RuntimeIpcApi,
} from '../main/app/ipcHandlers.js';

export type * from './shared.js';
export { IPC_CHANNELS, IPC_CHANNEL_PREFIX, MCP_RUNTIME_GLOBAL } from './shared.js';
