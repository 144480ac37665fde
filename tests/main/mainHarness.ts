// Shared helpers of the src/main tests: temp folders, user config files with real servers
// from node_modules, the built proxy CLI, bounded waits, and the "process is gone" check.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { CLI, EVERYTHING_SERVER, FIXTURES, MEMORY_SERVER, ROOT } from '../helpers/paths.js';
import { waitFor } from '../helpers/waitFor.js';

export { CLI, EVERYTHING_SERVER, FIXTURES, MEMORY_SERVER, ROOT } from '../helpers/paths.js';

/** Builds the proxy CLI once if dist has none (the test run's build step normally did). */
export function ensureCli(): string {
  if (!existsSync(CLI))
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), 'proxy'], { cwd: ROOT, stdio: 'inherit' });
  return CLI;
}

const dirs: string[] = [];
/** A fresh temp folder, removed by {@link removeTempDirs}. */
export function tempDir(prefix = 'qiming-main-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}
export function removeTempDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export const memoryEntry = (dir: string) => ({
  command: process.execPath,
  args: [MEMORY_SERVER],
  env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
});
export const everythingEntry = () => ({ command: process.execPath, args: [EVERYTHING_SERVER] });
/** A server (behind `sh`) that ignores SIGTERM and stdin EOF; appends its pid to `pidFile`. */
export const stubbornEntry = (pidFile: string) => ({
  command: 'sh',
  args: [join(FIXTURES, 'ignoresTermServer.sh'), pidFile],
});

/** Writes a config file atomically (temp file + rename, as editors do). */
export function writeConfig(path: string, config: unknown): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(config, null, 2));
  renameSync(tmp, path);
}

export { waitFor };

/** "Gone" for the runtime tests: not running (ESRCH, or a zombie: orphans are adopted by pid 1, which in this sandbox never reaps). */
export { notRunning, waitAllNotRunning } from '../helpers/processGone.js';
import { notRunning, waitAllNotRunning } from '../helpers/processGone.js';

/** SIGKILLs a pid (and its group) if it still runs: test cleanup after a failure. */
export function killQuietly(pid: number | undefined): void {
  if (!pid) return;
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** An array-backed logger for the runtime. */
export function memoryLogger() {
  const lines: string[] = [];
  const at = (level: string) => (m: string) => void lines.push(`${level} ${m}`);
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

/**
 * The runtime tests' afterEach: stops `runtimes` (2 s deadline each), SIGKILLs what still runs
 * of `pids`, removes the temp folders and empties both collections. Returns the pids still
 * running 3 s later (the caller asserts none).
 */
export async function cleanupRuntimes(
  runtimes: { stop(o: { deadlineMs: number }): Promise<unknown> }[],
  pids: number[] | Set<number>,
): Promise<number[]> {
  for (const r of runtimes.splice(0)) await r.stop({ deadlineMs: 2000 });
  const list = [...pids];
  if (Array.isArray(pids)) pids.length = 0;
  else pids.clear();
  for (const p of list) if (!notRunning(p)) killQuietly(p);
  const left = await waitAllNotRunning(list, 3000);
  removeTempDirs();
  return left;
}
