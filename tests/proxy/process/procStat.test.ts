import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseProcStat, readProcStat, readProcTable } from '../../../src/proxy/process/procStat.js';

describe.runIf(process.platform === 'linux')('procStat (the one /proc/<pid>/stat reader)', () => {
  it('reads state, ppid, pgid and start of a real child, and finds it in the table', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore', detached: true });
    try {
      const pid = child.pid!;
      const stat = readProcStat(pid)!;
      expect(stat).toMatchObject({ pid, ppid: process.pid, pgid: pid });
      expect(stat.state).toMatch(/^[RSD]$/);
      expect(stat.start).toMatch(/^\d+$/);
      // The same process in the table; its state may have moved on (a starting node runs, then sleeps).
      expect(readProcTable()!.find((p) => p.pid === pid)).toEqual({ ...stat, state: expect.stringMatching(/^[RSD]$/) });
      expect(readProcStat('self')!.ppid).toBe(process.ppid);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    expect(readProcStat(child.pid!)).toBeUndefined(); // reaped by the exit handler: ENOENT
  });

  it('reads the fields after the last ")", whatever the command name holds', () => {
    const fields = ['Z', '7', '9', ...Array.from({ length: 16 }, (_, i) => String(i)), '424242', 'x'];
    expect(parseProcStat(5, `5 (a ) (b) ${fields.join(' ')}`)).toEqual({
      pid: 5,
      state: 'Z',
      ppid: 7,
      pgid: 9,
      start: '424242',
    });
  });
});
