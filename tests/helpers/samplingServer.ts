// Starts tests/fixtures/samplingHttpServer.mjs (an SDK v1 streamable HTTP server whose tools
// ask the client to sample) on 127.0.0.1 port 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { FIXTURES } from './paths.js';
import { listeningPort } from './listeningPort.js';

export interface SamplingServer {
  child: ChildProcess;
  url: string;
  /** SIGKILL and wait for the exit. */
  stop: () => Promise<void>;
}

export async function startSamplingServer(): Promise<SamplingServer> {
  const child = spawn(process.execPath, [join(FIXTURES, 'samplingHttpServer.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await listeningPort(child, 'sampling server');
  return {
    child,
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
    },
  };
}
