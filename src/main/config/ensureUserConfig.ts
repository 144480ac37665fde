/**
 * The user's MCP config file in userData: written on the app's first run from the default
 * config (the bundled memory and filesystem servers, which work with no network) and never
 * overwritten afterwards: from then on it is the user's. The headless bridge (`proxy` mode
 * without `--config`) does the same with the same code (src/proxy/config/defaultConfig.ts).
 */
import { CONFIG_FILE_NAME, ensureConfigFile } from '../../proxy/index.js';

export { CONFIG_FILE_NAME };

/**
 * Returns the path of the user's config in `userDataDir`, writing `config` there first when
 * the file does not exist. The file is private (0600): users put tokens in it.
 */
export function ensureUserConfig(userDataDir: string, config: unknown): string {
  return ensureConfigFile(userDataDir, config);
}
