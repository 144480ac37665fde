// When an aggregate initialize may be answered (initializeWait.ts): at once when nothing is
// starting, the window is over or the first server has been ready for longer than the grace;
// otherwise once all have settled or the grace after the first ready one has passed.
import { describe, expect, it } from 'vitest';
import { initializeWait, type StartingServer } from '../../../src/proxy/hub/initializeWait.js';

/** A server whose first start ends when `settle` is called (ready or failed). */
function server(
  state: 'starting' | 'ready' | 'failed',
  readyAgoMs = 0,
): StartingServer & { settle(ready: boolean): void } {
  const waiters: (() => void)[] = [];
  const s = {
    isReady: state === 'ready',
    isSettled: state !== 'starting',
    readyAt: state === 'ready' ? new Date(Date.now() - readyAgoMs) : undefined,
    whenSettled: () => (s.isSettled ? Promise.resolve() : new Promise<void>((r) => waiters.push(r))),
    settle(ready: boolean) {
      s.isSettled = true;
      s.isReady = ready;
      s.readyAt = ready ? new Date() : undefined;
      for (const w of waiters.splice(0)) w();
    },
  };
  return s;
}

describe('initializeWait', () => {
  it('does not wait when nothing is starting, the window is over, or the first ready server is past its grace', () => {
    expect(initializeWait([server('ready'), server('failed')], 30_000)).toBeUndefined();
    expect(initializeWait([server('starting')], 0)).toBeUndefined();
    expect(initializeWait([server('ready', 5_000), server('starting')], 30_000, 2_000)).toBeUndefined();
  });

  it('waits for the first ready server, then at most the grace for the others', async () => {
    const quick = server('starting');
    const slow = server('starting');
    let answered = false;
    const wait = initializeWait([quick, slow], 30_000, 50)!.then(() => (answered = true));
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false); // nothing ready yet
    quick.settle(true);
    await wait;
    expect(slow.isSettled).toBe(false); // answered while the slow one is still starting
  });

  it('does not start the grace on a failed server, and resolves once all have settled', async () => {
    const failing = server('starting');
    const other = server('starting');
    let answered = false;
    const wait = initializeWait([failing, other], 30_000, 0)!.then(() => (answered = true));
    failing.settle(false);
    // A zero grace, had the failure started it, would be a timer set before this one: it would have fired first.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 1));
    expect(answered).toBe(false); // a failure is not "ready": no grace, still waiting
    other.settle(false);
    await wait;
    expect(answered).toBe(true);
  });
});
