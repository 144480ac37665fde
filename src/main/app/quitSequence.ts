/**
 * The quit sequence of the app, against a narrow interface that Electron's `app` and
 * `powerMonitor` implement (main.ts) and tests fake.
 *
 * - `before-quit`: the first one is held (`preventDefault()`, once, synchronously, guarded by
 *   a flag), the runtime is stopped with a deadline, then `app.quit()` runs again for real
 *   (and `app.exit()` if the app still has not quit shortly after). A second `before-quit`
 *   while stopping is not held: a user who insists gets the last-resort kill below.
 * - `will-quit` and `process.on('exit')`: synchronous last-resort kill (no-op when the stop
 *   already ended everything).
 * - powerMonitor `shutdown` (Linux, macOS): held, then the same sequence with a shorter deadline.
 * - Windows shutdown/logout (a window's `session-end`, where quit events may be skipped): the
 *   app calls {@link QuitSequence.sessionEnding}, which kills at once.
 */
import { errorMessage, silentLogger, type RuntimeLogger } from '../logs/runtimeLogger.js';

/** The event object of `before-quit`, `will-quit` and `shutdown`. */
export interface PreventableEvent {
  preventDefault(): void;
}

/** The part of Electron's `app` the sequence uses. */
export interface AppLike {
  on(event: 'before-quit' | 'will-quit', listener: (event: PreventableEvent) => void): unknown;
  quit(): void;
  exit(exitCode?: number): void;
}

/** The part of Electron's `powerMonitor` the sequence uses. */
export interface PowerMonitorLike {
  /** Electron passes an event here (see its docs), though its typings omit it. */
  on(event: 'shutdown', listener: (event?: PreventableEvent) => void): unknown;
}

export interface QuitSequenceOptions {
  app: AppLike;
  powerMonitor?: PowerMonitorLike;
  /** Where to hook the synchronous last resort; default `process`. */
  processLike?: { on(event: 'exit', listener: () => void): unknown };
  /** Graceful stop of everything (runtime, engines, log tail) within `deadlineMs`. */
  stop: (deadlineMs: number) => Promise<void>;
  /** Synchronous kill of every process tree still known. */
  killSync: () => void;
  /** Deadline of the stop at an ordinary quit. Default 5000 ms. */
  deadlineMs?: number;
  /** Deadline at system shutdown. Default 2000 ms. */
  shutdownDeadlineMs?: number;
  /** How long after `app.quit()` before `app.exit(0)`. Default 3000 ms. */
  exitFallbackMs?: number;
  logger?: RuntimeLogger;
}

/** State of an installed sequence, for the app and tests. */
export interface QuitSequence {
  /** Resolves when the graceful stop has finished (undefined until a quit began). */
  readonly stopped: Promise<void> | undefined;
  /** Starts the sequence as a quit would (e.g. from a menu item). */
  quit(): void;
  /** The OS session ends now (Windows `session-end`): synchronous kill of everything. */
  sessionEnding(): void;
}

/** Slack on top of the stop's own deadline before quitting anyway. */
const STOP_SLACK_MS = 2000;

/** Installs the handlers described in the file comment. */
export function installQuitSequence(o: QuitSequenceOptions): QuitSequence {
  const log = o.logger ?? silentLogger;
  let holding = false; // the first before-quit was held
  let stopped: Promise<void> | undefined;
  let deadlineMs = o.deadlineMs ?? 5000;

  const lastResort = (why: string) => {
    try {
      o.killSync();
    } catch (err) {
      log.error(`last-resort kill at ${why} failed: ${errorMessage(err)}`);
    }
  };

  const runStop = (): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const bounded = Promise.race([
      o.stop(deadlineMs).catch((err) => log.error(`stop failed: ${errorMessage(err)}`)),
      new Promise<void>((r) => {
        timer = setTimeout(() => {
          log.error(`stop did not finish within ${deadlineMs + STOP_SLACK_MS} ms; quitting anyway`);
          r();
        }, deadlineMs + STOP_SLACK_MS);
      }),
    ]);
    return bounded.then(() => {
      clearTimeout(timer);
      lastResort('the end of the stop');
      o.app.quit();
      const fallback = setTimeout(() => o.app.exit(0), o.exitFallbackMs ?? 3000);
      fallback.unref?.();
    });
  };

  o.app.on('before-quit', (event) => {
    if (holding) return; // stop done (our own app.quit()), or a second request: let it through
    holding = true;
    event.preventDefault();
    log.info('quitting: stopping the MCP runtime first');
    stopped = runStop();
  });
  o.app.on('will-quit', () => lastResort('will-quit'));
  (o.processLike ?? process).on('exit', () => lastResort('exit'));
  o.powerMonitor?.on('shutdown', (event) => {
    if (holding) return;
    event?.preventDefault();
    deadlineMs = Math.min(deadlineMs, o.shutdownDeadlineMs ?? 2000);
    o.app.quit(); // goes through before-quit above
  });

  return {
    get stopped() {
      return stopped;
    },
    quit: () => o.app.quit(),
    sessionEnding: () => lastResort('session-end'),
  };
}
