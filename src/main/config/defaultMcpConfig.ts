/**
 * The MCP config an installed app starts with (the bundled memory and filesystem servers),
 * and the variables it refers to.
 *
 * The config holds no absolute paths, only `${VAR}`s that the proxy expands when it reads
 * the file: an AppImage is mounted at a new path on every launch and updates move the app,
 * so a path written once into the user's config would go stale. Main sets the variables in
 * its own environment at every launch (the bridge inherits it) with {@link runtimeVars}.
 */
import type { NodeCommand } from '../runtime/cliPath.js';
import { SERVER_FILES, type RuntimePaths } from '../runtime/resourcePaths.js';

/** Names of the variables the default config refers to. */
export const RUNTIME_VAR_NAMES = {
  /** The executable that runs Node scripts (the app itself, or node in dev). */
  node: 'QIMING_NODE',
  /** Folder of the bundled servers. */
  serversDir: 'QIMING_SERVERS_DIR',
  /** Writable folder for the servers' data (the memory graph). */
  dataDir: 'QIMING_DATA_DIR',
  /** Folder the filesystem server may read and write. */
  filesDir: 'QIMING_FILES_DIR',
} as const;

const v = (name: keyof typeof RUNTIME_VAR_NAMES) => `\${${RUNTIME_VAR_NAMES[name]}}`;

/** The default `{"mcpServers": ...}` (a fresh object each call, ready to be written as JSON). */
export function defaultMcpConfig(): { mcpServers: Record<string, Record<string, unknown>> } {
  // ELECTRON_RUN_AS_NODE is set per entry because the bridge never passes its own on to
  // servers; plain node ignores it.
  return {
    mcpServers: {
      memory: {
        command: v('node'),
        args: [`${v('serversDir')}/${SERVER_FILES.memory}`],
        // The server's default file is beside its script, which is read-only once installed.
        env: { ELECTRON_RUN_AS_NODE: '1', MEMORY_FILE_PATH: `${v('dataDir')}/memory.jsonl` },
      },
      filesystem: {
        command: v('node'),
        args: [`${v('serversDir')}/${SERVER_FILES.filesystem}`, v('filesDir')],
        env: { ELECTRON_RUN_AS_NODE: '1' },
      },
    },
  };
}

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
