/**
 * The user's MCP config file in userData: written on the app's first run from the default
 * config (defaultMcpConfig.ts: the bundled memory and filesystem servers, which work with no
 * network) and never overwritten afterwards: from then on it is the user's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** File name of the user's MCP config inside userData. */
export const CONFIG_FILE_NAME = 'mcp.json';

/**
 * Returns the path of the user's config in `userDataDir`, writing `config` there first when
 * the file does not exist. The file is private (0600): users put tokens in it.
 */
export function ensureUserConfig(userDataDir: string, config: unknown): string {
  mkdirSync(userDataDir, { recursive: true });
  const path = join(userDataDir, CONFIG_FILE_NAME);
  try {
    // 'wx': never overwrite, even a file another instance wrote a moment ago.
    writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return path;
}
