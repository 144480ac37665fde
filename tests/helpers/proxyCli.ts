// Helpers to run the built proxy CLI under an SDK client, and the fixture servers.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../../src/proxy/process/processTree.js';

import { CLI, FIXTURES, ROOT } from './paths.js';
import { waitFor } from './waitFor.js';
import { waitNoProcess } from './processGone.js';
import { listeningPort } from './listeningPort.js';

export { CLI, ROOT } from './paths.js';
export { EVERYTHING_SERVER as EVERYTHING, MEMORY_SERVER as MEMORY } from './paths.js';
export const FIXTURE = join(FIXTURES, 'mcpFixtureServer.mjs');

export function ensureBuilt(): void {
  if (!existsSync(CLI))
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), 'proxy'], { stdio: 'inherit' });
}

export function tempDir(prefix = 'qiming-test-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function fixtureEntry(name: string, extra: string[] = [], stateFile?: string) {
  return {
    command: process.execPath,
    args: [FIXTURE, '--name', name, ...(stateFile ? ['--state-file', stateFile] : []), ...extra],
  };
}

export interface ProxyHandle {
  client: Client;
  transport: StdioClientTransport;
  stderr: string[];
  close: () => Promise<void>;
}

/** Starts the CLI with `args` under an SDK client (declaring the given capabilities), run by `node`. */
export async function connectProxy(
  args: string[],
  capabilities: Record<string, unknown> = {},
  env: Record<string, string> = {},
  node: string = process.execPath,
): Promise<ProxyHandle> {
  ensureBuilt();
  const transport = new StdioClientTransport({
    command: node,
    args: [CLI, ...args],
    stderr: 'pipe',
    env: { ...(process.env as Record<string, string>), ...env },
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (d: Buffer) => stderr.push(...d.toString('utf8').split('\n').filter(Boolean)));
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return {
    client,
    transport,
    stderr,
    close: async () => {
      const pid = transport.pid;
      await client.close().catch(() => undefined);
      if (pid) await waitNoProcess(pid, 8000);
    },
  };
}

/** Only ESRCH means gone (the proxy's own check). */
export { isAlive };

export { waitNoProcess };

export { waitFor };

/** JSON lines a fixture recorded in its state file. */
export function readState(file: string): Array<Record<string, unknown>> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Starts the fixture as an HTTP or SSE server; resolves with its port. */
export async function startHttpFixture(
  kind: 'http' | 'sse',
  opts: { port?: number; name?: string; stateFile?: string } = {},
): Promise<{ child: ChildProcess; port: number; url: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      FIXTURE,
      '--transport',
      kind,
      '--port',
      String(opts.port ?? 0),
      '--name',
      opts.name ?? kind,
      ...(opts.stateFile ? ['--state-file', opts.stateFile] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const port = await listeningPort(child, 'fixture');
  const url = `http://127.0.0.1:${port}/${kind === 'http' ? 'mcp' : 'sse'}`;
  return {
    child,
    port,
    url,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
      }
    },
  };
}
