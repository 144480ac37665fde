/**
 * How a proxy process ends: SIGTERM/SIGINT/SIGHUP (SIGHUP reloads the config instead in
 * `proxy` mode: `onHangup`), the parent's death (watchdog), or the
 * mode's own end (stdin EOF). The first trigger runs the mode's graceful `stop` with a
 * deadline; a second signal, or the deadline, exits at once after a synchronous kill of
 * every child process tree still registered. Before that deadline a stop still under way
 * SIGKILLs the server trees left, and a stop that finished closes the group watcher and waits
 * for it, so everything this process started is gone, and reaped, when it exits. Shortly after
 * start it sweeps what proxies that died left behind (orphanSweep.ts).
 */
import { startParentWatchdog } from './parentWatchdog.js';
import type { Logger } from '../common/logger.js';
import { sweepOrphans } from '../process/orphanSweep.js';
import { closeGroupWatcher } from '../process/groupRegistry.js';
import { killRegisteredTrees } from '../process/processTree.js';

/** The sweep of what crashed proxies left behind runs this long after start, off the start-up path. */
const SWEEP_DELAY_MS = 300;
/**
 * Bound on the graceful stop once the parent is gone: nobody is left to serve, so servers get
 * stdin EOF and this long before the forced exit kills their groups (the parent's death is
 * seen up to one watchdog interval late; together well within 5 s).
 */
const PARENT_GONE_STOP_MS = 2000;
/**
 * This long before the deadline a graceful stop still under way SIGKILLs the server trees
 * still running (at most half the deadline in): they exit while this process can reap them,
 * and the stop ends on time instead of leaving them to the exit-time kill and to init.
 */
const HURRY_BEFORE_DEADLINE_MS = 500;

export interface LifecycleOptions {
  logger: Logger;
  stop: (reason: string) => Promise<void>;
  /** Bound on the graceful stop before a forced exit. */
  shutdownTimeoutMs?: number;
  watchdog?: { pid: number; intervalMs?: number };
  /** When set, SIGHUP calls this instead of stopping the process (`proxy` mode: reload the config). */
  onHangup?: () => void;
  /** Process exit; injectable for tests. */
  exit?: (code: number) => void;
}

/** The lifecycle settings every mode takes from the command line. */
export function lifecycleFlags(opts: {
  shutdownTimeoutMs?: number;
  watchdog?: boolean;
  parentPid?: number;
  watchdogIntervalMs?: number;
}): Pick<LifecycleOptions, 'shutdownTimeoutMs' | 'watchdog'> {
  return {
    shutdownTimeoutMs: opts.shutdownTimeoutMs,
    watchdog: opts.watchdog ? { pid: opts.parentPid ?? process.ppid, intervalMs: opts.watchdogIntervalMs } : undefined,
  };
}

export interface Lifecycle {
  /** Starts the shutdown (idempotent); resolves when the process is about to exit. */
  shutdown(reason: string, code?: number, deadlineMs?: number): Promise<void>;
  readonly done: Promise<number>;
}

export function installLifecycle(o: LifecycleOptions): Lifecycle {
  const exit = o.exit ?? ((code: number) => process.exit(code));
  const timeoutMs = o.shutdownTimeoutMs ?? 5_000;
  let stopping: Promise<void> | undefined;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  let stopWatchdog: (() => void) | undefined;

  const shutdown = (reason: string, code = 0, deadlineMs = timeoutMs): Promise<void> => {
    if (stopping) return stopping;
    o.logger.info(`shutting down: ${reason}`);
    stopWatchdog?.();
    const startedAt = Date.now();
    const timer = setTimeout(() => {
      o.logger.warn(`graceful stop took longer than ${deadlineMs} ms; forcing exit`);
      finish(code);
    }, deadlineMs);
    timer.unref();
    const hurry = setTimeout(
      () => {
        const n = killRegisteredTrees();
        if (n > 0) o.logger.warn(`stop running out of time: SIGKILL to ${n} server process tree(s) still running`);
      },
      Math.max(deadlineMs - HURRY_BEFORE_DEADLINE_MS, Math.floor(deadlineMs / 2)),
    );
    hurry.unref();
    stopping = o
      .stop(reason)
      .catch((err: Error) => o.logger.error(`error while stopping: ${err.message}`))
      .then(async () => {
        clearTimeout(hurry);
        // Every server group is stopped: the watcher has nothing left to end and exits at once.
        if (!(await closeGroupWatcher(Math.max(0, deadlineMs - (Date.now() - startedAt)))))
          o.logger.warn('the group watcher did not exit in time');
        clearTimeout(timer);
        finish(code);
      });
    return stopping;
  };

  let finished = false;
  function finish(code: number): void {
    if (finished) return;
    finished = true;
    resolveDone(code);
    exit(code);
  }

  const onSignal = (sig: NodeJS.Signals) => {
    if (stopping) {
      o.logger.warn(`second ${sig}: exiting now`);
      finish(130);
      return;
    }
    void shutdown(`received ${sig}`);
  };
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    const onHangup = o.onHangup;
    if (sig === 'SIGHUP' && onHangup) process.on(sig, () => (stopping ? onSignal(sig) : onHangup()));
    else process.on(sig, onSignal);
  }
  if (o.watchdog) {
    stopWatchdog = startParentWatchdog({
      pid: o.watchdog.pid,
      intervalMs: o.watchdog.intervalMs,
      onDead: () =>
        void shutdown(`parent process ${o.watchdog!.pid} is gone`, 0, Math.min(timeoutMs, PARENT_GONE_STOP_MS)),
    });
  }
  const sweep = setTimeout(() => {
    const killed = sweepOrphans();
    if (killed > 0)
      o.logger.warn(`ended ${killed} server process group(s) or process(es) left behind by a proxy that died`);
  }, SWEEP_DELAY_MS);
  sweep.unref();
  return { shutdown, done };
}
