/**
 * Where the proxies' shared log file lives. The runtime sets `MCP_PROXY_LOG_FILE` for every
 * proxy from {@link proxyLogFilePath}, and the main-process tail watches the same path, so the
 * two can never disagree about the name.
 */
import { renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** File name of the proxies' shared log inside the app's logs folder. */
export const PROXY_LOG_FILE_NAME = 'mcp-proxy.log';

/** Default size above which {@link rotateIfLarge} moves the log aside at app start. */
export const DEFAULT_PROXY_LOG_MAX_BYTES = 5 * 1024 * 1024;

/**
 * The absolute path of the proxies' shared log file in `logsDir` (for example Electron's
 * `app.getPath('logs')`). Absolute, because the value is handed to processes whose working
 * directory is not ours.
 */
export function proxyLogFilePath(logsDir: string): string {
  return join(resolve(logsDir), PROXY_LOG_FILE_NAME);
}

/**
 * Moves `path` to `<path>.1` (replacing an older `<path>.1`) when it is larger than
 * `maxBytes`. Meant for app start, before any proxy writes and before the tail starts.
 * Returns true when it rotated; a missing file is not an error (returns false).
 */
export function rotateIfLarge(path: string, maxBytes: number = DEFAULT_PROXY_LOG_MAX_BYTES): boolean {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  if (size <= maxBytes) return false;
  const old = `${path}.1`;
  // rename replaces an existing target on POSIX; removing it first makes Windows behave the same
  // even when the old file is read-only or the platform's rename refuses to overwrite.
  rmSync(old, { force: true });
  renameSync(path, old);
  return true;
}
