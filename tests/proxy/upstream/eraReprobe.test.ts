// Re-probing: when a server comes back after a crash, a restart or on its own
// address, its era is probed again, so a server upgraded from 2025-11-25 to 2026-07-28 (or
// back) is spoken to in its new era. The fixture (eraSwitchServer.mjs) reads its era from a
// file at each start: the SDK v1 fixture's echo answers "hi", the SDK v2 one's "echo: hi".
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, tempDir, waitFor } from '../../helpers/proxyCli.js';
import { cleanupBridges, startBridge, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { listeningPort } from '../../helpers/listeningPort.js';
import { FIXTURES } from '../../helpers/paths.js';
import { text } from '../../helpers/toolText.js';

const SWITCH = join(FIXTURES, 'eraSwitchServer.mjs');
const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await cleanupBridges();
});

/** A 2025 client of the bridge's /mcp/<id> calling echo; undefined while the call fails. */
async function echo(b: BridgeProcess, id: string): Promise<string | undefined> {
  try {
    const { client } = await b.client(`/mcp/${id}`);
    try {
      return text(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }));
    } finally {
      await client.close();
    }
  } catch {
    return undefined;
  }
}

async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  c.kill('SIGKILL');
  await new Promise((r) => c.once('exit', r));
}

describe('re-probing the era when a server comes back', () => {
  it('a stdio server: after a crash and after a restart on demand', async () => {
    const dir = tempDir('qiming-era-');
    cleanups.push(dir.remove);
    const eraFile = join(dir.path, 'era');
    writeFileSync(eraFile, '2025');
    const b = await startBridge({
      config: {
        mcpServers: { s: { command: process.execPath, args: [SWITCH, '--era-file', eraFile, '--name', 's'] } },
      },
    });
    expect(await echo(b, 's')).toBe('hi');

    writeFileSync(eraFile, '2026');
    const pid = (await b.server('s')).pid!;
    process.kill(pid, 'SIGKILL');
    await b.waitServer('s', (s) => s.state === 'ready' && s.pid !== pid, 15_000, 'restarted after the crash');
    expect(await echo(b, 's')).toBe('echo: hi');

    writeFileSync(eraFile, '2025');
    const pid2 = (await b.server('s')).pid!;
    expect((await b.fetch('/servers/s/restart', { method: 'POST' })).status).toBe(200);
    await b.waitServer('s', (s) => s.state === 'ready' && s.pid !== pid2, 15_000, 'restarted on demand');
    expect(await echo(b, 's')).toBe('hi');
  }, 60_000);

  it('an HTTP server that comes back on its address in the other era, both ways', async () => {
    const dir = tempDir('qiming-era-');
    cleanups.push(dir.remove);
    const eraFile = join(dir.path, 'era');
    let child: ChildProcess | undefined;
    const serve = async (era: string, port = 0) => {
      writeFileSync(eraFile, era);
      child = spawn(
        process.execPath,
        [SWITCH, '--era-file', eraFile, '--transport', 'http', '--port', String(port), '--name', 'h'],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      return listeningPort(child, 'era switch fixture');
    };
    cleanups.push(() => child && stopChild(child));
    const port = await serve('2025');
    const b = await startBridge({
      config: { mcpServers: { h: { url: `http://127.0.0.1:${port}/mcp`, type: 'http' } } },
    });
    expect(await echo(b, 'h')).toBe('hi');

    await stopChild(child!);
    await serve('2026', port);
    await waitFor(async () => (await echo(b, 'h')) === 'echo: hi', 20_000, 'the 2026 server spoken to');

    await stopChild(child!);
    await serve('2025', port);
    await waitFor(async () => (await echo(b, 'h')) === 'hi', 20_000, 'the 2025 server spoken to again').catch((e) => {
      console.log(b.stderr.slice(-4000));
      throw e;
    });
  }, 60_000);
});
