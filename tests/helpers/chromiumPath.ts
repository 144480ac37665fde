/**
 * Which Chromium the browser tests run. In order: `QIMING_CHROMIUM=/path` (must exist and
 * start, else an error saying so), a system Chromium that starts (`/usr/bin/chromium`,
 * `/usr/bin/chromium-browser`), else the build shipped inside the `@sparticuz/chromium` npm
 * package (Linux x64), unpacked once into the temp folder. The test run's global setup resolves
 * it once and hands the path to every test worker in `QIMING_CHROMIUM_RESOLVED`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM_ENV = 'QIMING_CHROMIUM';
export const RESOLVED_ENV = 'QIMING_CHROMIUM_RESOLVED';
const SYSTEM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** True when `path` runs `--version` within 20 s. */
function starts(path: string): boolean {
  try {
    execFileSync(path, ['--headless', '--no-sandbox', '--version'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/** Finds (and, for the npm build, unpacks) the Chromium to use; throws with the reason when there is none. */
export async function resolveChromium(env: NodeJS.ProcessEnv = process.env): Promise<{ path: string; source: string }> {
  const chosen = env[CHROMIUM_ENV]?.trim();
  if (chosen) {
    if (!existsSync(chosen)) throw new Error(`${CHROMIUM_ENV}=${chosen}: no such file`);
    if (!starts(chosen)) throw new Error(`${CHROMIUM_ENV}=${chosen}: does not start (--version failed)`);
    return { path: chosen, source: CHROMIUM_ENV };
  }
  for (const path of SYSTEM_CANDIDATES) if (existsSync(path) && starts(path)) return { path, source: 'system' };
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `no system Chromium, and @sparticuz/chromium is Linux x64 only: set ${CHROMIUM_ENV}=/path/to/chromium`,
    );
  const { default: packaged } = await import('@sparticuz/chromium');
  const path = await packaged.executablePath();
  if (!starts(path))
    throw new Error(
      `the Chromium of @sparticuz/chromium (${path}) does not start: set ${CHROMIUM_ENV}=/path/to/chromium`,
    );
  return { path, source: '@sparticuz/chromium' };
}

/** The path the global setup resolved (a test file run on its own resolves it here). */
export async function chromiumPath(): Promise<string> {
  const resolved = process.env[RESOLVED_ENV];
  if (resolved) return resolved;
  const { path } = await resolveChromium();
  process.env[RESOLVED_ENV] = path;
  return path;
}
