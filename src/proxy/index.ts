/**
 * The proxy's public face for the rest of the project. `src/main` imports from here and
 * nowhere deeper in `src/proxy`, so the proxy can reorganise its files freely.
 * Everything re-exported is plain Node (no electron).
 */
export {
  killTree,
  killTreeSync,
  isAlive,
  isGroupAlive,
  isRunning,
  isGroupRunning,
  signalGroup,
  waitForExit,
  waitForGroupExit,
  waitForGroupStop,
} from './process/processTree.js';
export { loadConfig, parseConfig, readConfig, clientVarsFor, ConfigError, SERVER_ID_RE } from './config/config.js';
export { jsoncToJson } from './config/jsonc.js';
export { AGENT_OPTIONS, BRIDGE_OPTIONS } from './config/topLevelOptions.js';
export { findServers } from './config/clientFormats.js';
export type { ProxyConfig, ServerEntry, StdioEntry, RemoteEntry } from './config/config.js';
export { LOG_FILE_ENV, LOG_LEVEL_ENV } from './common/logger.js';
export { within } from './common/deadline.js';
export { sweepOrphans } from './process/orphanSweep.js';
export {
  TOKEN_ENV,
  RUN_AS_NODE_ENV,
  OAUTH_KEY_ENV,
  OAUTH_DIR_ENV,
  SECRET_VAR_PREFIX,
  CALLER_KEY_ENV,
} from './common/envNames.js';
export { browserUrl, urlKind } from './common/browserUrl.js';
export { sandboxAnswer, type SandboxAnswer } from './apps/sandboxFiles.js';
export { ConfigStore, changeFrom } from './config/configStore.js';
export { MAX_CONFIG_DEPTH, depthMessage, valueNestsDeeper } from './config/jsonDepth.js';
export { loginPath, handLoginPath, discoverLoginPath, type LoginPath } from './process/loginPath.js';
export { LOGIN_PATH_ENV } from './common/envNames.js';
export {
  defaultMcpConfig,
  ensureConfigFile,
  CONFIG_FILE_NAME,
  RUNTIME_VAR_NAMES,
  SERVER_FILES,
} from './config/defaultConfig.js';
export { serverLog } from './bridge/serverLog.js';
export {
  AGENT_ENTRY_HEADER,
  AGENT_NAME_HEADER,
  AGENT_SESSION_HEADER,
  CALLER_KEY_HEADER,
  TOOL_EXPOSURE_HEADER,
} from './bridge/agentHeaders.js';
export { CALL_TOOL, SEARCH_TOOLS } from './hub/economy/metaToolNames.js';
export { namespacedName } from './hub/naming.js';
export { writeAtomic } from './common/writeAtomic.js';
export { SECRET_STORE_ENV } from './common/envNames.js';
export { AppSecretStore, defaultSecretsFile } from './secrets/appSecretStore.js';
export { NoSecretStore, NO_SAFE_STORAGE } from './secrets/noSecretStore.js';
export { keepDraftSecrets } from './secrets/draftSecrets.js';
export { keepImportSecrets } from './secrets/importSecrets.js';
export { moveSecretNames } from './secrets/secretRenames.js';
export { aesCodec } from './oauth/keyCodec.js';
export type { SecretStore } from './secrets/secretStore.js';
