/**
 * The headless first run: `proxy` mode without `--config`/`--config-file` runs the same
 * default config as the app's first run (config/defaultConfig.ts: the bundled memory and
 * filesystem servers), from the same place: `mcp.json` in the user's data folder, written
 * there once (0600) and the user's from then on, with the servers' data beside it in `mcp/`.
 *
 * The data folder is the one Electron gives the app when it runs from this tree (`npm
 * start`): `<appData>/qiming-mcp-runtime`, where appData is `$XDG_CONFIG_HOME` or
 * `~/.config` on Linux, `~/Library/Application Support` on macOS and `%APPDATA%` on
 * Windows; so `npm run bridge` and `npm start` share one config. (An installed app is
 * named by its product name instead: pass its file with `--config-file`.)
 */
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { defaultMcpConfig, ensureConfigFile, RUNTIME_VAR_NAMES, SERVER_FILES } from '../config/defaultConfig.js';
import type { Logger } from '../common/logger.js';
import { appDataDir } from '../common/appDataDir.js';

/** The app's folder name under appData in the dev tree (package.json `name`). */
export const APP_DATA_NAME = 'qiming-mcp-runtime';

/** Electron's `app.getPath('userData')` for {@link APP_DATA_NAME}, computed without Electron. */
export function userDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  return join(appDataDir(platform, env, home), APP_DATA_NAME);
}

/** The bundled servers' folder: `dist/servers` beside the CLI's `dist/proxy`. */
function bundledServersDir(): string {
  const here = typeof __dirname === 'string' ? __dirname : process.cwd();
  return join(dirname(here), 'servers');
}

/**
 * Makes sure the default config exists and sets the variables it refers to in this
 * process's environment (those not already set: a caller may point them elsewhere).
 * Returns the config file's path.
 */
export function prepareDefaultConfig(logger: Logger, env: NodeJS.ProcessEnv = process.env): string {
  const userData = userDataDir(process.platform, env);
  const dataDir = join(userData, 'mcp');
  const values: Record<string, string> = {
    [RUNTIME_VAR_NAMES.node]: process.execPath,
    [RUNTIME_VAR_NAMES.serversDir]: bundledServersDir(),
    [RUNTIME_VAR_NAMES.dataDir]: dataDir,
    [RUNTIME_VAR_NAMES.filesDir]: join(dataDir, 'files'),
  };
  for (const [k, value] of Object.entries(values)) if (!env[k]) env[k] = value;
  mkdirSync(env[RUNTIME_VAR_NAMES.filesDir]!, { recursive: true });
  const serversDir = env[RUNTIME_VAR_NAMES.serversDir]!;
  if (!existsSync(join(serversDir, SERVER_FILES.memory)))
    logger.warn(`the bundled servers are not in ${serversDir} (build them with npm run build)`);
  const file = ensureConfigFile(userData, defaultMcpConfig());
  logger.info(`no --config given: using ${file} (the app's default config on first run)`);
  return file;
}
