/**
 * The MCP config both the app and the headless bridge start with on their first run: the
 * bundled memory and filesystem servers, which work with no network, and the variables it
 * refers to. Shared here because src/proxy cannot import src/main; the app takes it through
 * src/proxy/index.ts (src/main/config/defaultMcpConfig.ts adds the app's values).
 *
 * The config holds no absolute paths, only `${VAR}`s that the proxy expands when it reads
 * the file: an AppImage is mounted at a new path on every launch and updates move the app,
 * so a path written once into the user's config would go stale. Whoever starts the bridge
 * sets the variables in the environment at every launch.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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

/** The bundled default servers' file names under `dist/servers` (see scripts/buildServers.mjs). */
export const SERVER_FILES = { memory: 'memory.mjs', filesystem: 'filesystem.mjs' } as const;

/** File name of the user's MCP config inside the user's data folder. */
export const CONFIG_FILE_NAME = 'mcp.json';

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

/**
 * Returns the path of the config in `dir`, writing `config` there first when the file does
 * not exist, and never overwriting it afterwards: from then on it is the user's. The file is
 * private (0600): users put tokens in it.
 */
export function ensureConfigFile(dir: string, config: unknown): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, CONFIG_FILE_NAME);
  try {
    // 'wx': never overwrite, even a file another instance wrote a moment ago.
    writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return path;
}
