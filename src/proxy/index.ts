/**
 * The proxy's public face for the rest of the project. `src/main` imports from here and
 * nowhere deeper in `src/proxy`, so the proxy can reorganise its files freely.
 * Everything re-exported is plain Node (no electron).
 */
export { killTree, killTreeSync, isAlive, isGroupAlive, isRunning, isGroupRunning, signalGroup, waitForExit, waitForGroupExit, waitForGroupStop } from './processTree.js';
export { loadConfig, parseConfig, ConfigError, SERVER_ID_RE } from './config.js';
export type { ProxyConfig, ServerEntry, StdioEntry, RemoteEntry } from './config.js';
export { LOG_FILE_ENV, LOG_LEVEL_ENV } from './logger.js';
export { within } from './deadline.js';
export { sweepOrphans } from './orphanSweep.js';
export { TOKEN_ENV, RUN_AS_NODE_ENV } from './envNames.js';
