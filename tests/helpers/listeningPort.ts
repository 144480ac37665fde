// The port a test server reports on stdout as `listening <port>` (our HTTP fixtures do).
import type { ChildProcess } from 'node:child_process';

/** Resolves with the port from the child's `listening <port>` line; rejects if it exits first. */
export function listeningPort(child: ChildProcess, what: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /listening (\d+)/.exec(buf);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}
