// Supervision in the real bridge: a crashed server comes back (new pid, restarts counted,
// open sessions told its tools changed), one that keeps crashing ends `failed`, and
// `POST /servers/<id>/restart` restarts one on demand.
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanupBridges,
  fixture,
  initializeBody,
  notRunning,
  MCP_POST_HEADERS,
  nodeEntry,
  readPidFile,
  startBridge,
  tempDir,
  waitFor,
  waitNotRunning,
} from '../../helpers/bridgeProcess.js';

afterEach(cleanupBridges);

function text(result: unknown): string {
  return ((result as { content: { type: string; text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');
}

function countListChanged(client: Client): { count: number } {
  const seen = { count: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    seen.count++;
  });
  return seen;
}

describe('bridge supervision', () => {
  it('restarts a crashed server: restarting then ready, new pid, restarts counted, sessions get tools/list_changed', async () => {
    const pidFile = join(tempDir(), 'pids');
    const b = await startBridge({
      config: { mcpServers: { flaky: nodeEntry(fixture('crashingServer.mjs'), ['--pid-file', pidFile]) } },
    });
    const before = await b.server('flaky');
    const { client } = await b.client('/mcp/flaky');
    const changed = countListChanged(client);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['crash', 'echo', 'pid']);

    const crash = await client.callTool({ name: 'crash', arguments: { code: 9 } }).catch((e: Error) => e);
    expect(String(crash)).toMatch(/exited with code 9/);
    const after = await b.waitServer(
      'flaky',
      (s) => s.state === 'ready' && s.pid !== undefined && s.pid !== before.pid,
      15_000,
      'ready again with a new pid',
    );
    expect(after.restarts).toBe(1);
    expect(await waitNotRunning(before.pid!, 5000)).toBe(true);
    // /events told the story too: ready, restarting, ready.
    await waitFor(
      () => b.statesOf('flaky').join() === 'ready,restarting,ready',
      5000,
      `events ready,restarting,ready (got ${b.statesOf('flaky')})`,
    );
    expect(readPidFile(pidFile)).toEqual([before.pid, after.pid]);

    // The same session goes on, told twice: tools gone, tools back.
    await waitFor(() => changed.count >= 2, 5000, 'tools/list_changed on crash and on restart');
    expect((await client.listTools()).tools).toHaveLength(3);
    expect(text(await client.callTool({ name: 'pid', arguments: {} }))).toBe(String(after.pid));
  });

  it('marks a server that keeps crashing failed after a bounded number of attempts', async () => {
    const pidFile = join(tempDir(), 'pids');
    const b = await startBridge({
      config: {
        mcpServers: {
          fine: nodeEntry(fixture('slowStartServer.mjs')),
          doomed: nodeEntry(fixture('crashingServer.mjs'), ['--exit-on-start', '4', '--pid-file', pidFile]),
        },
      },
    });
    // Backoff 1 s doubling: attempts at about 0, 1, 3, 7 and 15 s.
    const failed = await b.waitServer('doomed', (s) => s.state === 'failed', 45_000, 'failed');
    expect(failed.restarts).toBe(4);
    expect(failed.lastError).toMatch(/exited with code 4/);
    expect(failed.stderrTail).toContain('crashing: fatal: cannot open the database');
    expect(failed.pid).toBeUndefined();
    const pids = readPidFile(pidFile);
    expect(pids).toHaveLength(5);
    for (const pid of pids) expect(notRunning(pid)).toBe(true);
    // Only the failing server is affected.
    expect((await b.server('fine')).state).toBe('ready');
    const refused = await b.fetch('/mcp/doomed', { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ state: 'failed' });
  }, 60_000);

  it('restarts one server on POST /servers/<id>/restart; concurrent requests make one restart', async () => {
    const pidFile = join(tempDir(), 'a.pids');
    const b = await startBridge({
      config: {
        mcpServers: {
          a: nodeEntry(fixture('slowStartServer.mjs'), ['--pid-file', pidFile]),
          b: nodeEntry(fixture('slowStartServer.mjs')),
          off: { ...nodeEntry(fixture('slowStartServer.mjs')), disabled: true },
        },
      },
    });
    const before = await b.status();
    const pidOf = (id: string) => before.servers.find((s) => s.id === id)!.pid!;
    const { client } = await b.client('/mcp/a');
    const changed = countListChanged(client);
    await client.listTools();

    const res = await b.fetch('/servers/a/restart', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    // Never 'ready' without a live process in between: the old pid goes, the state changes at once.
    const during = await b.server('a');
    expect(
      during.state === 'restarting' ||
        (during.state === 'ready' && during.pid !== undefined && during.pid !== pidOf('a')),
    ).toBe(true);
    const after = await b.waitServer(
      'a',
      (s) => s.state === 'ready' && s.pid !== undefined && s.pid !== pidOf('a'),
      15_000,
      'ready with a new pid',
    );
    expect(after.restarts).toBe(1);
    expect(await waitNotRunning(pidOf('a'), 5000)).toBe(true);
    await waitFor(
      () => b.statesOf('a').join() === 'ready,restarting,ready',
      5000,
      `events ready,restarting,ready (got ${b.statesOf('a')})`,
    );
    // The other server was not touched.
    expect(await b.server('b')).toMatchObject({ state: 'ready', pid: pidOf('b'), restarts: 0 });
    await waitFor(() => changed.count >= 1, 5000, 'tools/list_changed after the restart');
    expect(text(await client.callTool({ name: 'pid', arguments: {} }))).toBe(String(after.pid));

    expect((await b.fetch('/servers/nope/restart', { method: 'POST' })).status).toBe(404);
    const disabled = await b.fetch('/servers/off/restart', { method: 'POST' });
    expect(disabled.status).toBe(500);
    expect(await disabled.json()).toEqual({ ok: false, error: 'server "off" is disabled' });
    expect((await b.fetch('/servers/a/restart')).status).toBe(405);

    // Three requests at once: one restart, one new process, nothing left running untracked.
    const results = await Promise.all([1, 2, 3].map(() => b.fetch('/servers/a/restart', { method: 'POST' })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const third = await b.waitServer(
      'a',
      (s) => s.state === 'ready' && s.pid !== undefined && s.pid !== after.pid,
      15_000,
      'ready after the concurrent restarts',
    );
    expect(third.restarts).toBe(2);
    const spawned = readPidFile(pidFile);
    expect(spawned).toEqual([pidOf('a'), after.pid, third.pid]);
    for (const pid of spawned.slice(0, 2)) expect(await waitNotRunning(pid, 5000), `old pid ${pid}`).toBe(true);
    expect(notRunning(third.pid!)).toBe(false);
  });
});
