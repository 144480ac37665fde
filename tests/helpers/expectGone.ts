// The strict check that a process is gone: kill(pid, 0) fails with ESRCH (exited and reaped).
import { expect } from 'vitest';

export function expectGone(pid: number): void {
  let code: string | undefined;
  try {
    process.kill(pid, 0);
  } catch (err) {
    code = (err as NodeJS.ErrnoException).code;
  }
  expect(code, `pid ${pid} should be gone`).toBe('ESRCH');
}
