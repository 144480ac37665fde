// The 2026-07-28 fixtures (SDK v2): tests/fixtures/modernServer.mjs (small) and
// modernEverythingServer.mjs (what the conformance suite calls), as a stdio entry or a
// running HTTP server on 127.0.0.1 port 0.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { FIXTURES } from './paths.js';
import { listeningPort } from './listeningPort.js';

export const MODERN_FIXTURE = join(FIXTURES, 'modernServer.mjs');
export const MODERN_EVERYTHING = join(FIXTURES, 'modernEverythingServer.mjs');

/** A stdio config entry for the fixture; `legacy: 'serve'` makes it dual-era. */
export function modernEntry(name: string, extra: Record<string, unknown> = {}, legacy: 'reject' | 'serve' = 'reject') {
  return { command: process.execPath, args: [MODERN_FIXTURE, '--name', name, '--legacy', legacy], ...extra };
}

/** A stdio config entry for modernEverythingServer.mjs (2026-07-28 only). */
export function modernEverythingEntry(name: string) {
  return { command: process.execPath, args: [MODERN_EVERYTHING, '--name', name] };
}

/** `script`: MODERN_FIXTURE (default) or MODERN_EVERYTHING; `legacy: 'serve'` makes either dual-era. */
export async function startModernHttp(
  name: string,
  legacy: 'reject' | 'serve' = 'reject',
  script = MODERN_FIXTURE,
): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [script, '--transport', 'http', '--name', name, '--legacy', legacy], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await listeningPort(child, 'modern fixture');
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
      }
    },
  };
}
