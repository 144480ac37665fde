// Incremental config reload in the real bridge (SIGHUP): of a three-server config, the edited
// server restarts, the untouched ones keep their pids, sessions and a call in flight, a
// removed server's whole process tree is gone, an added one appears with list_changed on an
// open aggregate session; a broken entry keeps its running server (reported), a file that
// is not JSON changes nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ServerStatus } from '../../../src/shared/status.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanupBridges,
  fixture,
  nodeEntry,
  startBridge,
  tempDir,
  waitFor,
  waitNotRunning,
  type BridgeProcess,
} from '../../helpers/bridgeProcess.js';

afterEach(cleanupBridges);

const FIXTURE = fixture('mcpFixtureServer.mjs');

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

/** Pids a pidServer.mjs recorded, by role. */
function pidsOf(file: string): { role: string; pid: number }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { role: string; pid: number });
}

function threeServers(dir: string): {
  file: string;
  config: { mcpServers: Record<string, Record<string, unknown>> };
  pidFile: string;
} {
  const pidFile = join(dir, 'c.pids');
  const config = {
    mcpServers: {
      a: nodeEntry(FIXTURE, ['--name', 'a']),
      b: nodeEntry(FIXTURE, ['--name', 'b']),
      c: nodeEntry(fixture('pidServer.mjs'), [pidFile, '--grandchild']),
    },
  };
  const file = join(dir, 'mcp.json');
  writeFileSync(file, JSON.stringify(config));
  return { file, config, pidFile };
}

/** Polls /status until server `id` exists and `pred` holds (waitServer fails at once on a missing id). */
async function waitFor2(
  b: BridgeProcess,
  id: string,
  pred: (s: ServerStatus) => boolean,
  what: string,
): Promise<ServerStatus> {
  return waitFor(
    async () => {
      const s = (await b.status()).servers.find((x) => x.id === id);
      // A server being stopped may still say ready for a moment, without a pid.
      return s && s.pid !== undefined && pred(s) && s;
    },
    15_000,
    `${id}: ${what}`,
  );
}

async function pidOf(b: BridgeProcess, id: string): Promise<number> {
  const s = await b.server(id);
  expect(s.state).toBe('ready');
  return s.pid!;
}

describe('bridge config reload (SIGHUP)', () => {
  it('restarts only the edited server, stops a removed tree, starts an added one; the others keep pids, sessions and calls in flight', async () => {
    const dir = tempDir();
    const { file, config, pidFile } = threeServers(dir);
    const b = await startBridge({ config: file });
    const [a0, b0, c0] = [await pidOf(b, 'a'), await pidOf(b, 'b'), await pidOf(b, 'c')];
    const cTree = pidsOf(pidFile).map((p) => p.pid);
    expect(cTree).toHaveLength(2); // the server and its grandchild
    expect(cTree).toContain(c0);

    const { client: all } = await b.client('/mcp');
    const changed = countListChanged(all);
    const names0 = (await all.listTools()).tools.map((t) => t.name);
    expect(names0).toContain('c__echo');
    const { client: onB } = await b.client('/mcp/b');
    expect(JSON.parse(text(await onB.callTool({ name: 'whoami', arguments: {} }))).pid).toBe(b0);
    const { client: onA } = await b.client('/mcp/a');
    const { client: onC } = await b.client('/mcp/c');
    expect(text(await onC.callTool({ name: 'echo', arguments: { text: 'c' } }))).toBe('c');

    // A slow call on b is in flight while the config changes under it: its first progress
    // says it runs; it lasts long enough for the reload to finish first on a loaded machine.
    let progressed = 0;
    const slow = all
      .callTool({ name: 'b__slow', arguments: { ms: 8000, steps: 16 } }, undefined, {
        timeout: 20_000,
        onprogress: () => progressed++,
      })
      .then((r) => ({ r, reloadedFirst: /config reloaded/.test(b.stderr) }))
      .catch((e: Error) => ({ r: e, reloadedFirst: false }));
    await waitFor(() => progressed > 0, 10_000, 'the slow call to run');

    // a edited (another tool set), c removed, d added; b untouched.
    const dPids = join(dir, 'd.pids');
    const edited = {
      mcpServers: {
        a: nodeEntry(FIXTURE, ['--name', 'a', '--tools', 'echo,whoami']),
        b: config.mcpServers.b,
        d: nodeEntry(fixture('pidServer.mjs'), [dPids]),
      },
    };
    writeFileSync(file, JSON.stringify(edited));
    b.child.kill('SIGHUP');

    const d = await waitFor2(b, 'd', (s) => s.state === 'ready', 'the added server ready');
    const a1 = await waitFor2(
      b,
      'a',
      (s) => s.state === 'ready' && s.pid !== a0,
      'the edited server ready with a new pid',
    );
    b.remember(d.pid, a1.pid);
    expect(await waitNotRunning(a0, 5000)).toBe(true);
    for (const pid of cTree) expect(await waitNotRunning(pid, 5000), `c's process ${pid} is gone`).toBe(true);
    expect((await b.status()).servers.map((s) => s.id)).toEqual(['a', 'b', 'd']);

    // b: same process, same session, and the call in flight completed.
    const done = await slow;
    expect(text(done.r)).toBe('slept 8000');
    expect(done.reloadedFirst, 'the reload happened while the call was in flight').toBe(true);
    expect(await pidOf(b, 'b')).toBe(b0);
    expect(JSON.parse(text(await onB.callTool({ name: 'whoami', arguments: {} }))).pid).toBe(b0);
    // The open aggregate session was told, and lists the new state.
    await waitFor(() => changed.count >= 1, 5000, 'tools/list_changed on the aggregate session');
    const names1 = (await all.listTools()).tools.map((t) => t.name);
    expect(names1).toContain('d__echo');
    expect(names1.filter((n) => n.startsWith('c__'))).toEqual([]);
    expect(names1.filter((n) => n.startsWith('a__')).sort()).toEqual(['a__echo', 'a__whoami']);
    // The session on the edited server's own route goes on with the new process.
    expect(JSON.parse(text(await onA.callTool({ name: 'whoami', arguments: {} }))).pid).toBe(a1.pid);
    // A removed server's sessions are closed and its route is gone.
    await expect(onC.callTool({ name: 'echo', arguments: { text: 'c' } })).rejects.toThrow(/unknown server \\"c\\"/);
    expect(
      (
        await b.fetch('/mcp/c', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
          body: '{}',
        })
      ).status,
    ).toBe(404);
    expect(b.stderr).toMatch(/config reloaded \(SIGHUP\): added d; removed c; changed a/);
    expect(b.exit).toBeUndefined();
  });

  it('a broken entry keeps its running server and is reported, the other edits apply; a file that is not JSON changes nothing; the fix applies', async () => {
    const dir = tempDir();
    const { file, config } = threeServers(dir);
    const b = await startBridge({ config: file });
    const before = await b.status();
    const pidBefore = (id: string) => before.servers.find((s) => s.id === id)!.pid;
    const bEdited = { ...config.mcpServers.b, timeoutMs: 30_000 };

    // a broken, b edited, e added broken.
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { ...config.mcpServers, a: { command: 42 }, b: bEdited, e: { url: 'not a url' } } }),
    );
    b.child.kill('SIGHUP');
    const b1 = await waitFor2(
      b,
      'b',
      (s) => s.state === 'ready' && s.pid !== pidBefore('b'),
      'b restarted on its edit',
    );
    b.remember(b1.pid);
    const st = await b.status();
    expect(st.bridge.state).toBe('ready');
    expect(st.bridge.configError).toBe(
      'server "a" keeps running on its previous entry: invalid config entry: command must be a string',
    );
    expect(st.servers.find((s) => s.id === 'a')).toMatchObject({ state: 'ready', pid: pidBefore('a') });
    expect(st.servers.find((s) => s.id === 'c')).toMatchObject({ state: 'ready', pid: pidBefore('c') });
    expect(st.servers.find((s) => s.id === 'e')).toMatchObject({
      state: 'failed',
      lastError: 'invalid config entry: url is not a valid absolute URL',
    });
    expect(b.stderr).toContain('config entry not applied (SIGHUP): server "a": command must be a string');

    // The runtime's route says the same (applied, with the entries it could not read); it needs the token.
    const viaHttp = await b.fetch('/config/reload', { method: 'POST' });
    expect(viaHttp.status).toBe(200);
    expect(await viaHttp.json()).toMatchObject({
      ok: true,
      invalid: ['a', 'e'],
      restarted: [],
      unchanged: ['b', 'c', 'a'],
    });
    expect((await fetch(`${b.url}/config/reload`, { method: 'POST' })).status).toBe(401);
    expect((await b.fetch('/config/reload')).status).toBe(405);

    // A file that is not JSON: nothing changes, 422.
    const pids = (await b.status()).servers.map((s) => [s.id, s.pid]);
    writeFileSync(file, '{"mcpServers": {"a": ');
    b.child.kill('SIGHUP');
    await waitFor(
      async () => /not valid JSON/.test((await b.status()).bridge.configError ?? ''),
      10_000,
      'the JSON error in the status',
    );
    expect(b.stderr).toMatch(/config not applied \(SIGHUP\); the servers keep running as they were: .*not valid JSON/);
    const refused = await b.fetch('/config/reload', { method: 'POST' });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: string }).error).toContain('is not valid JSON');
    expect((await b.status()).servers.map((s) => [s.id, s.pid])).toEqual(pids);

    // Fixed: a restarts on its entry, e is gone with its line, and the problem is no longer shown.
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { ...config.mcpServers, a: { ...config.mcpServers.a, timeoutMs: 30_000 }, b: bEdited },
      }),
    );
    b.child.kill('SIGHUP');
    const a1 = await waitFor2(
      b,
      'a',
      (s) => s.state === 'ready' && s.pid !== pidBefore('a'),
      'a restarted after the fix',
    );
    b.remember(a1.pid);
    const after = await b.status();
    expect(after.bridge.configError).toBeUndefined();
    expect(after.servers.map((s) => [s.id, s.state])).toEqual([
      ['a', 'ready'],
      ['b', 'ready'],
      ['c', 'ready'],
    ]);
    expect(after.servers.find((s) => s.id === 'c')!.pid).toBe(pidBefore('c'));
  });

  it('SIGHUP still stops stdio aggregation served over HTTP (--transport http): only proxy mode reloads', async () => {
    const dir = tempDir();
    const { file } = threeServers(dir);
    const b = await startBridge({ config: file, mode: 'aggregate-http' });
    b.remember(...(await b.status()).servers.map((s) => s.pid));
    b.child.kill('SIGHUP');
    expect((await b.waitExit(10_000)).code).toBe(0);
    expect(b.stderr).toMatch(/shutting down: received SIGHUP/);
  });
});
