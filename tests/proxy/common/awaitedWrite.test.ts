import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { awaitedWrite } from '../../../src/proxy/common/awaitedWrite.js';

describe('awaitedWrite (the awaited write to a server stdin or the stream link)', () => {
  it('under backpressure: one shared drain listener, every blocked write rejects when the peer goes', async () => {
    // A child that reads nothing until told to: its stdin pipe fills up.
    const child = spawn(
      process.execPath,
      ['-e', "process.on('SIGUSR2', () => process.stdin.resume()); process.stdin.pause(); setTimeout(() => {}, 20000)"],
      {
        stdio: ['pipe', 'ignore', 'ignore'],
      },
    );
    try {
      await new Promise((r) => child.once('spawn', r));
      child.stdin.on('error', () => undefined); // EPIPE after the kill, as the transports do
      const chunk = 'x'.repeat(64 * 1024) + '\n';
      const baseDrain = child.stdin.listenerCount('drain');
      const closed = () => new Error('stdin closed before the message was written');
      const pending: Promise<void>[] = [];
      while (!child.stdin.writableNeedDrain && pending.length < 1000)
        pending.push(awaitedWrite(child.stdin, chunk, closed).catch(() => undefined));
      expect(child.stdin.writableNeedDrain).toBe(true);
      const blocked = Array.from({ length: 20 }, () => awaitedWrite(child.stdin, chunk, closed));
      expect(child.stdin.listenerCount('drain') - baseDrain).toBe(1);
      const settled = blocked.map((p) =>
        p.then(
          () => 'resolved',
          (e: Error) => e.message,
        ),
      );
      child.kill('SIGKILL');
      // Each settles by the first of its write error (EPIPE) and the stream's close: never resolved.
      for (const outcome of await Promise.all(settled))
        expect(outcome).toMatch(/^(write EPIPE|stdin closed before the message was written)$/);
      if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('close', r));
      await new Promise((r) => setImmediate(r)); // the stdin 'close' event follows its closed flag
      expect(child.stdin.listenerCount('drain') - baseDrain).toBe(0); // the shared waiter is gone with the stream
      await Promise.allSettled(pending);
    } finally {
      child.kill('SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
    }
  });
});
