// The strict check that a process is gone: kill(pid, 0) fails with ESRCH (exited and reaped);
// the two meanings of "gone" are in processGone.ts.
import { expect } from 'vitest';
import { notRunning, waitNoProcess } from './processGone.js';

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
  expect(notRunning(pid), `pid ${pid} should not run`).toBe(true);
  await waitNoProcess(pid, reapMs);
  expectGone(pid);
}
