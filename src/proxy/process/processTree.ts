/**
 * Signalling whole process trees. A server started through `npx` or `sh -c` is a wrapper
 * with children of its own; signalling only the wrapper leaves those children running.
 * On POSIX every server is spawned `detached`, so it leads its own process group and the
 * group id equals its pid: `kill(-pid)` reaches every descendant that stayed in the group.
 * Windows has no groups; `taskkill /T` walks the tree by parent pid instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readProcStat, readProcTable } from './procStat.js';

/** How often the wait helpers look again. */
const POLL_INTERVAL_MS = 25;

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/**
 * Sends `signal` to process group `pgid` (POSIX only). Returns false when the group no
 * longer exists (ESRCH); other errors (EPERM) are thrown.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if (errnoCode(err) === 'ESRCH') return false;
    throw err;
  }
}

/**
 * Whether process `pid` exists. Only ESRCH means gone: EPERM means it exists but belongs
 * to someone else. A zombie (exited, not yet reaped by its parent) still counts as alive.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) !== 'ESRCH';
  }
}

/** Whether any process of group `pgid` still exists (POSIX; false on Windows). */
export function isGroupAlive(pgid: number, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'win32') return false;
  try {
    return signalGroup(pgid, 0);
  } catch {
    return true; // EPERM: members exist that we may not signal
  }
}

/**
 * Whether `pid` still runs. An exited process that no one has reaped yet (a zombie) does not
 * count: an orphaned server is reaped by pid 1, and some sandboxes' pid 1 never reaps.
 */
export function isRunning(pid: number, platform: NodeJS.Platform = process.platform): boolean {
  if (!isAlive(pid)) return false;
  if (platform !== 'linux') return true;
  const stat = readProcStat(pid);
  return stat !== undefined && stat.state !== 'Z'; // undefined: vanished between the two checks
}

/**
 * When process `pid` started, as field 22 of /proc/<pid>/stat (clock ticks since boot), on
 * Linux; undefined elsewhere or when it does not exist. With the pid it names one process
 * for good: a reused pid has another start time.
 */
export function processStartTime(pid: number, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== 'linux') return undefined;
  return readProcStat(pid)?.start;
}

/**
 * Whether process group `pgid` has a member that still runs (zombies do not count, see
 * {@link isRunning}). Linux scans /proc; other POSIX systems ask the kernel (zombies count
 * there); Windows has no groups and checks the pid.
 */
export function isGroupRunning(pgid: number, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'win32') return isAlive(pgid);
  if (platform !== 'linux') return isGroupAlive(pgid, platform);
  if (!isGroupAlive(pgid, platform)) return false;
  const table = readProcTable();
  if (table === undefined) return true;
  return table.some((p) => p.pgid === pgid && p.state !== 'Z');
}

/**
 * Signals the whole tree rooted at `pid`. POSIX: the process group `-pid` (falling back to
 * the pid alone when it leads no group); ESRCH is ignored. Windows: `taskkill /T /F`, which
 * always kills outright (Windows has no SIGTERM to send), spawned hidden and not awaited.
 */
export function killTree(pid: number, signal: NodeJS.Signals, platform: NodeJS.Platform = process.platform): void {
  if (platform === 'win32') {
    try {
      const tk = spawn('taskkill', ['/PID', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' });
      tk.on('error', () => {
        // taskkill missing or failing: fall back to the one process we know.
        killPid(pid, signal);
      });
    } catch {
      killPid(pid, signal);
    }
    return;
  }
  try {
    if (signalGroup(pid, signal)) return;
  } catch {
    // EPERM on the group: still try the process itself below.
  }
  killPid(pid, signal);
}

function killPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (err) {
    if (errnoCode(err) !== 'ESRCH' && errnoCode(err) !== 'EPERM') throw err;
  }
}

/**
 * Last-resort synchronous kill for `process.on('exit')`, where nothing asynchronous runs:
 * SIGKILL to the group (and the pid), or `taskkill /T /F` run synchronously on Windows.
 * Never throws.
 */
export function killTreeSync(pid: number, platform: NodeJS.Platform = process.platform): void {
  try {
    if (platform === 'win32') {
      spawnSync('taskkill', ['/PID', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore', timeout: 5000 });
      return;
    }
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // No group: the pid alone below.
    }
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone, or not ours: nothing more can be done at exit.
  }
}

async function pollUntil(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + Math.max(0, timeoutMs);
  for (;;) {
    if (done()) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((r) => setTimeout(r, Math.min(POLL_INTERVAL_MS, left)));
  }
}

/** Polls until `pid` is gone (ESRCH); resolves true if it went within `timeoutMs`. */
export function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  return pollUntil(() => !isAlive(pid), timeoutMs);
}

/**
 * Polls until group `pgid` has no running member (zombies waiting for a reaper do not count,
 * see {@link isGroupRunning}); true if that happened within `timeoutMs`.
 */
export function waitForGroupStop(
  pgid: number,
  timeoutMs: number,
  platform: NodeJS.Platform = process.platform,
): Promise<boolean> {
  return pollUntil(() => !isGroupRunning(pgid, platform), timeoutMs);
}

/** Polls until group `pgid` has no member left; true if that happened within `timeoutMs`. */
export function waitForGroupExit(
  pgid: number,
  timeoutMs: number,
  platform: NodeJS.Platform = process.platform,
): Promise<boolean> {
  return pollUntil(() => !isGroupAlive(pgid, platform), timeoutMs);
}

const killAtExit = new Set<number>();
let exitHookInstalled = false;

/**
 * SIGKILLs, now, every tree registered for the exit kill: a graceful stop running out of time
 * ends its servers while this process still runs to reap them (at exit they would be left to
 * init). Answers how many trees were signalled.
 */
export function killRegisteredTrees(): number {
  for (const p of killAtExit) killTreeSync(p);
  return killAtExit.size;
}

/**
 * Registers `pid` for a synchronous tree kill if this process exits while it still runs
 * (one shared `exit` listener, however many children). Returns the unregister function.
 */
export function killTreeOnExit(pid: number): () => void {
  killAtExit.add(pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const p of killAtExit) killTreeSync(p);
      killAtExit.clear();
    });
  }
  return () => {
    killAtExit.delete(pid);
  };
}
