/**
 * Opt-in parent watchdog: the proxy's parent may die without closing our stdin (an
 * engine crash leaves the pipe open in a sibling, for example), so we poll it.
 * `process.kill(pid, 0)` sends no signal; only ESRCH means the process is gone (EPERM
 * means it exists but belongs to someone else).
 */
import { readProcStat } from '../process/procStat.js';

/** Default polling interval. */
export const DEFAULT_WATCHDOG_INTERVAL_MS = 2000;

/**
 * Whether a process with this pid exists. Never throws. Any error but ESRCH (EPERM)
 * means alive; a pid that is not a positive integer names no process and is not alive.
 */
export function isProcessAlive(pid: number): boolean {
  // pid 0 and negative pids address process groups, which is not what is being asked.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Our current parent pid as the kernel sees it (Linux /proc), or undefined elsewhere.
 * Node's `process.ppid` is read once at start-up, so it cannot see a re-parenting.
 */
function currentPpid(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  const ppid = readProcStat('self')?.ppid;
  return ppid !== undefined && Number.isInteger(ppid) ? ppid : undefined;
}

function reparented(pid: number): boolean {
  const now = currentPpid();
  return now !== undefined && now !== pid;
}

export interface ParentWatchdogOptions {
  pid: number;
  intervalMs?: number;
  /** Called once when the process is found dead. */
  onDead: () => void;
  /** Liveness check; defaults to `isProcessAlive`. */
  isAlive?: (pid: number) => boolean;
}

/**
 * Polls `pid` every `intervalMs` (timer unref'd, so it never keeps the process alive)
 * and calls `onDead` once when it is gone; returns a function that stops polling.
 * When watching our own parent with the default check on Linux, being re-parented also
 * counts as the parent's death: that catches a dead parent that is not yet reaped
 * (a zombie still answers `kill(pid, 0)`) and a recycled pid.
 */
export function startParentWatchdog(opts: ParentWatchdogOptions): () => void {
  const { pid, onDead } = opts;
  const intervalMs = opts.intervalMs ?? DEFAULT_WATCHDOG_INTERVAL_MS;
  const watchReparent = opts.isAlive === undefined && pid === process.ppid && currentPpid() === pid;
  const alive = opts.isAlive ?? isProcessAlive;
  let stopped = false;

  const check = (): void => {
    if (stopped) return;
    let dead: boolean;
    try {
      dead = !alive(pid) || (watchReparent && reparented(pid));
    } catch {
      dead = false; // a failing custom check must not kill the proxy
    }
    if (!dead) return;
    stop();
    try {
      onDead();
    } catch {
      // The watchdog never throws; onDead is the caller's business.
    }
  };

  // Node turns a delay above 2^31-1 ms into 1 ms: clamp instead of polling a thousand times a second.
  const timer = setInterval(check, Math.min(Math.max(intervalMs, 1), 2 ** 31 - 1));
  timer.unref();
  function stop(): void {
    stopped = true;
    clearInterval(timer);
  }
  return stop;
}
