/**
 * The app's side of the default MCP config: the config itself and the variables it refers to
 * are shared with the headless bridge (src/proxy/config/defaultConfig.ts, re-exported here);
 * the values of those variables for this launch come from {@link runtimeVars}, which main
 * sets in its own environment at every launch (the bridge inherits it).
 */
import type { NodeCommand } from '../runtime/cliPath.js';
import type { RuntimePaths } from '../runtime/resourcePaths.js';
import { RUNTIME_VAR_NAMES } from '../../proxy/index.js';

export { defaultMcpConfig, RUNTIME_VAR_NAMES } from '../../proxy/index.js';

export interface RuntimeVarsOptions {
  paths: Pick<RuntimePaths, 'serversDir'>;
  /** How this process runs Node scripts (`nodeCommand()` from cliPath.ts). */
  node: Pick<NodeCommand, 'command'>;
  /** Writable data folder, e.g. `app.getPath('userData')`. */
  dataDir: string;
  /** Folder for the filesystem server, e.g. a workspace or `app.getPath('documents')`. */
  filesDir: string;
}

/** The values of {@link RUNTIME_VAR_NAMES} for this launch; merge them into `process.env`. */
export function runtimeVars(o: RuntimeVarsOptions): Record<string, string> {
  return {
    [RUNTIME_VAR_NAMES.node]: o.node.command,
    [RUNTIME_VAR_NAMES.serversDir]: o.paths.serversDir,
    [RUNTIME_VAR_NAMES.dataDir]: o.dataDir,
    [RUNTIME_VAR_NAMES.filesDir]: o.filesDir,
  };
}
