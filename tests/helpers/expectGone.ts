// The strict check that a process is gone: kill(pid, 0) fails with ESRCH (exited and reaped).
import { expect } from 'vitest';
import { isRunning } from '../../src/proxy/process/processTree.js';
import { waitFor } from './waitFor.js';

function killCode(pid: number): string | undefined {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code;
  }
  return undefined;
}

export function expectGone(pid: number): void {
  expect(killCode(pid), `pid ${pid} should be gone`).toBe('ESRCH');
}

/**
 * For an orphan (a grandchild whose parent died): it must not run now, and its reaper (pid 1
 * here, which reaps late in some sandboxes) must have taken it within `reapMs`.
 */
export async function expectStoppedThenGone(pid: number, reapMs = 5000): Promise<void> {
  expect(isRunning(pid), `pid ${pid} should not run`).toBe(false);
  await waitFor(() => killCode(pid) === 'ESRCH', reapMs, `pid ${pid} to be reaped`).catch(() => undefined);
  expectGone(pid);
}
