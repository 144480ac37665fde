// The watcher (src/proxy/process/groupWatcher.ts) on its own, with real processes: when its pipe
// closes it ends the groups it was told about and the processes below them, but never a
// group whose leader has another start time than the one recorded (a reused pid).
import { afterEach, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { GroupWatcher } from '../../../src/proxy/process/groupWatcher.js';
import { isRunning } from '../../../src/proxy/process/processTree.js';
import { waitFor } from '../../helpers/waitFor.js';
import { startTimeOf } from '../../helpers/procTree.js';

const pids: number[] = [];
/** How long the watcher must stay up with its pipe open (it leaves only at EOF). */
const OPEN_PIPE_WINDOW_MS = 500;

afterEach(async () => {
  for (const p of pids) {
    for (const t of [-p, p]) {
      try {
        process.kill(t, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  await waitFor(() => pids.every((p) => !isRunning(p)), 5000, 'cleanup').catch(() => undefined);
  pids.splice(0);
});

/** A group leader that ignores SIGTERM, with a child that moves to its own session. */
async function stubbornGroup(): Promise<{ leader: number; escaped: number; start: string }> {
  const script = `
    process.on('SIGTERM', () => {});
    const c = require('child_process').spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setTimeout(() => {}, 60000)'], { stdio: 'ignore', detached: true });
    console.log(c.pid);
    setTimeout(() => {}, 60000);`;
  const leader = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  pids.push(leader.pid!);
  const escaped = await new Promise<number>((resolve) =>
    leader.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim()))),
  );
  pids.push(escaped);
  return { leader: leader.pid!, escaped, start: startTimeOf(leader.pid!)! };
}

it.skipIf(process.platform !== 'linux')(
  'at EOF it ends listed groups and their escaped descendants, and spares a group whose start time differs',
  async () => {
    const doomed = await stubbornGroup();
    const spared = await stubbornGroup();
    const watcher = new GroupWatcher();
    watcher.send(`g ${doomed.leader} ${doomed.start}`);
    watcher.send(`g ${spared.leader} ${Number(spared.start) + 1}`);
    pids.push(watcher.pid!);
    await new Promise((r) => setTimeout(r, OPEN_PIPE_WINDOW_MS));
    expect(isRunning(watcher.pid!)).toBe(true);
    watcher.close();
    await waitFor(
      () => !isRunning(doomed.leader) && !isRunning(doomed.escaped),
      5000,
      'the listed group and its escaped child to be killed',
    );
    await waitFor(() => !isRunning(watcher.pid!), 3000, 'the watcher to exit');
    expect(isRunning(spared.leader), 'a group whose leader has another start time is not touched').toBe(true);
    expect(isRunning(spared.escaped)).toBe(true);
  },
  15_000,
);

it.skipIf(process.platform !== 'linux')(
  'a group reported stopped (u) is left alone at EOF',
  async () => {
    const g = await stubbornGroup();
    const watcher = new GroupWatcher();
    watcher.send(`g ${g.leader} ${g.start}`);
    watcher.send(`u ${g.leader}`);
    pids.push(watcher.pid!);
    watcher.close();
    await waitFor(() => !isRunning(watcher.pid!), 3000, 'the watcher to exit');
    expect(isRunning(g.leader)).toBe(true);
  },
  15_000,
);
