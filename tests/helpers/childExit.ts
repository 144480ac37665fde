// A spawned child's exit, for the test wrappers around the CLI and the bridge.
import type { ChildProcess } from 'node:child_process';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Resolves with the child's exit; `onExit` sees it first (to keep it on the wrapper). */
export function exitOf(child: ChildProcess, onExit: (exit: ExitInfo) => void): Promise<ExitInfo> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      const exit = { code, signal };
      onExit(exit);
      resolve(exit);
    });
  });
}

/** `exited`, or a rejection after `timeoutMs` whose message `describe()` writes at that time. */
export function exitWithin(exited: Promise<ExitInfo>, timeoutMs: number, describe: () => string): Promise<ExitInfo> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(describe())), timeoutMs);
  });
  return Promise.race([exited, timeout]).finally(() => clearTimeout(timer));
}
