/**
 * The staged stop of a spawned stdio server and its process tree (for `ChildProcessTransport`):
 * stdin EOF, grace, SIGTERM to the group, grace, SIGKILL to the group, then a wait until no
 * process of the group is left, then its stdio pipes are closed. Keeps no state of its own.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { within } from '../common/deadline.js';
import { type Logger, errorText } from '../common/logger.js';
import { isGroupRunning, killTree, signalGroup, waitForGroupStop } from './processTree.js';
import { serverGroupStopped } from './groupRegistry.js';

export const DEFAULT_STDIN_GRACE_MS = 2000;
export const DEFAULT_TERM_GRACE_MS = 2000;
/** How long to wait for the group to empty once SIGKILLed (orphans are reaped by init). */
export const DEFAULT_GROUP_EXIT_TIMEOUT_MS = 5000;
/** How long after exit the pipes may stay open (a grandchild outside the group holds them). */
const STDIO_CLOSE_WAIT_MS = 500;

/** The stop's timings (unset: the defaults above). */
export interface ServerTreeStopTimes {
  stdinGraceMs?: number;
  termGraceMs?: number;
  groupExitTimeoutMs?: number;
}

/** Signals the tree; once the leader is gone only the group is signalled (its pid may be reused). */
export function signalServerTree(
  pid: number | undefined,
  signal: NodeJS.Signals,
  leaderExited: boolean,
  log: Logger,
): void {
  if (pid === undefined) return;
  try {
    if (!leaderExited) killTree(pid, signal);
    else if (process.platform !== 'win32') signalGroup(pid, signal);
  } catch (err) {
    log.warn(`cannot send ${signal}: ${errorText(err)}`);
  }
}

/**
 * Stops `child` (spawned, so it has a pid) and its group; resolves once the child has exited,
 * (POSIX) its group is empty and its pipes are closed or given up on. `exited` resolves on the
 * child's exit, `leaderExited` tells whether it has happened yet.
 */
export async function stopServerTree(
  child: ChildProcessWithoutNullStreams,
  exited: Promise<void>,
  leaderExited: () => boolean,
  times: ServerTreeStopTimes,
  log: Logger,
): Promise<void> {
  const pid = child.pid!;
  const stdinGrace = times.stdinGraceMs ?? DEFAULT_STDIN_GRACE_MS;
  const termGrace = times.termGraceMs ?? DEFAULT_TERM_GRACE_MS;
  const groupTimeout = times.groupExitTimeoutMs ?? DEFAULT_GROUP_EXIT_TIMEOUT_MS;
  const kill = (signal: NodeJS.Signals) => signalServerTree(pid, signal, leaderExited(), log);
  /** Resolves true once the direct child has exited, false after `ms`. */
  const waitExit = (ms: number) =>
    within(
      exited.then(() => true),
      ms,
      false,
    );
  if (!leaderExited()) {
    child.stdin.end();
    if (!(await waitExit(stdinGrace))) {
      log.debug(`no exit ${stdinGrace} ms after stdin EOF; SIGTERM`);
      kill('SIGTERM');
      if (!(await waitExit(termGrace))) {
        log.warn(`no exit ${termGrace} ms after SIGTERM; SIGKILL`);
        kill('SIGKILL');
        if (!(await waitExit(groupTimeout))) log.error(`pid ${pid} survived SIGKILL`);
      }
    }
  }
  // The leader is gone; descendants left in its group (a server's own children) go too.
  // A member that has exited but waits for its reaper (an orphan's parent is pid 1, which
  // some sandboxes reap late) runs no more and is not waited for.
  if (isGroupRunning(pid)) {
    kill('SIGTERM');
    if (!(await waitForGroupStop(pid, termGrace))) {
      kill('SIGKILL');
      if (!(await waitForGroupStop(pid, groupTimeout))) log.error(`process group ${pid} still running after SIGKILL`);
    }
  }
  serverGroupStopped(pid);
  await waitStdioClosed(child);
}

async function waitStdioClosed(child: ChildProcessWithoutNullStreams): Promise<void> {
  const closed = (s: typeof child.stdout) => (s.closed ? undefined : new Promise((r) => s.once('close', r)));
  await within(
    Promise.all([closed(child.stdout), closed(child.stderr)]).then(() => true),
    STDIO_CLOSE_WAIT_MS,
    false,
  );
  // A process outside the group may still hold the pipes; stop reading them anyway.
  child.stdout.destroy();
  child.stderr.destroy();
  child.stdin.destroy();
}
