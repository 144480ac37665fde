// The tests' one definition of "gone", in two explicit meanings:
// - no process: kill(pid, 0) fails with ESRCH (it exited and was reaped). Right for a
//   process whose parent reaps it (the test runner's own children, a live proxy's servers).
// - not running: no process, or a zombie (it exited; only its reaper is missing). Right for
//   orphans, adopted by pid 1, which in some sandboxes never reaps. The proxy's own check
//   (isRunning in src/proxy/process/processTree.ts).
import { isAlive, isRunning } from '../../src/proxy/process/processTree.js';

const POLL_MS = 25;

/** kill(pid, 0) fails with ESRCH. */
export function noProcess(pid: number): boolean {
  return !isAlive(pid);
}

/** No process, or a zombie. */
export function notRunning(pid: number): boolean {
  return !isRunning(pid);
}

async function waitUntil(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}

/** Waits until `pid` is no process (ESRCH); false if it still exists after `timeoutMs`. */
export function waitNoProcess(pid: number, timeoutMs: number): Promise<boolean> {
  return waitUntil(() => noProcess(pid), timeoutMs);
}

/** Waits until `pid` no longer runs (zombies count as not running); false at the deadline. */
export function waitNotRunning(pid: number, timeoutMs: number): Promise<boolean> {
  return waitUntil(() => notRunning(pid), timeoutMs);
}

/** Waits until none of `pids` runs (zombies count as not running); answers those still running at the deadline. */
export async function waitAllNotRunning(pids: number[], timeoutMs = 5000): Promise<number[]> {
  await waitUntil(() => pids.every(notRunning), timeoutMs);
  return pids.filter((p) => !notRunning(p));
}
