// Runs a Node script that serves MCP over HTTP and prints `listening <port>` when ready
// (tests/fixtures/conformanceServer.mjs, features2025Server.mjs), and stops it for good.
import { spawn } from 'node:child_process';
import { waitNoProcess } from './processGone.js';
import { scaled } from './loadScale.js';

export interface HttpScript {
  pid: number;
  /** http://localhost:<port>/mcp */
  url: string;
  stop: () => Promise<void>;
}

export async function startHttpServerScript(
  script: string,
  args: string[] = [],
  timeoutMs = scaled(15_000),
): Promise<HttpScript> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await waitNoProcess(child.pid!, 8000);
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`${script} did not report its port within ${timeoutMs} ms: ${stderr}`)),
        timeoutMs,
      );
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        const m = /listening (\d+)/.exec((out += d));
        if (m) (clearTimeout(timer), resolve(Number(m[1])));
      });
      child.once(
        'exit',
        (code) => (clearTimeout(timer), reject(new Error(`${script} exited with ${code}: ${stderr}`))),
      );
    });
    return { pid: child.pid!, url: `http://localhost:${port}/mcp`, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
