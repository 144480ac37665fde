// The bridge's start-up as a real process: the one ready line, the listener before the
// servers, 503 for a server not ready, start failures with their reasons, a busy port.
import { existsSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanupBridges,
  everythingEntry,
  FILESYSTEM_SERVER,
  fixture,
  initializeBody,
  MCP_POST_HEADERS,
  memoryEntry,
  nodeEntry,
  rawRequest,
  sleep,
  spawnBridge,
  startBridge,
  tempDir,
  waitFor,
} from '../../helpers/bridgeProcess.js';

afterEach(cleanupBridges);

/**
 * How long a test watches an answer that must stay held while a gated server starts: an
 * answer not held comes in one round trip, well within this on a loaded machine; the gate
 * holds the server for as long as the test wants, so the window cannot make a right answer late.
 */
const HELD_WINDOW_MS = 1000;

describe('bridge start-up', () => {
  it('prints exactly one JSON ready line, with every server and its state, and sends it over IPC', async () => {
    const dir = tempDir();
    const b = await startBridge({
      ipc: true,
      config: {
        mcpServers: {
          everything: everythingEntry(),
          memory: memoryEntry(dir),
          fs: nodeEntry(FILESYSTEM_SERVER, [dir]),
          off: { ...nodeEntry(fixture('slowStartServer.mjs')), disabled: true },
        },
      },
    });
    const ready = b.ready!;
    expect(b.stdout).toBe(`${JSON.stringify(ready)}\n`);
    expect(ready).toMatchObject({ event: 'ready', pid: b.pid, token: b.token, url: `http://127.0.0.1:${ready.port}` });
    expect(ready.port).toBeGreaterThan(0);
    const byId = Object.fromEntries(ready.servers.map((s) => [s.id, s]));
    expect(Object.keys(byId).sort()).toEqual(['everything', 'fs', 'memory', 'off']);
    expect(byId.everything).toMatchObject({ state: 'ready' });
    expect(byId.everything.tools).toBeGreaterThanOrEqual(10);
    expect(byId.memory).toMatchObject({ state: 'ready', tools: 9 });
    expect(byId.fs.state).toBe('ready');
    expect(byId.fs.tools).toBeGreaterThan(5);
    expect(byId.off).toMatchObject({ state: 'disabled', tools: 0 });
    await waitFor(() => b.ipcMessages.length > 0, 5000, 'the IPC ready message');
    expect(b.ipcMessages[0]).toEqual(ready);

    // /status agrees, with a live pid per running server, and stdout stays untouched.
    const status = await b.status();
    expect(status.bridge).toMatchObject({ state: 'ready', pid: b.pid, port: ready.port });
    for (const s of status.servers.filter((x) => x.state === 'ready')) {
      expect(s.pid).toBeGreaterThan(0);
      expect(() => process.kill(s.pid!, 0)).not.toThrow();
      expect(s.tools.length).toBe(byId[s.id].tools);
    }
    const { client } = await b.client('/mcp/memory');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('create_entities');
    expect((await b.fetch('/health')).status).toBe(200);
    expect(b.stdoutLines()).toHaveLength(1);
  });

  it('answers on its port before the servers are ready; a new session on a server not ready gets 503 with its state', async () => {
    const dir = tempDir();
    const gate = join(dir, 'start');
    const b = spawnBridge({
      config: { mcpServers: { slow: nodeEntry(fixture('slowStartServer.mjs'), ['--gate', gate]) } },
    });
    const { port } = await b.waitListening();
    expect((await b.fetch('/health')).status).toBe(200);
    const status = await b.status();
    expect(status.bridge.state).toBe('starting');
    expect(status.servers[0]).toMatchObject({ id: 'slow', state: 'starting' });

    const refused = await b.fetch('/mcp/slow', { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ serverId: 'slow', state: 'starting' });
    const sse = await rawRequest(port, { path: '/sse/slow', headers: { ...b.auth, Accept: 'text/event-stream' } });
    expect(sse.status).toBe(503);
    expect(JSON.parse(sse.body)).toMatchObject({ state: 'starting' });
    const unknown = await b.fetch('/mcp/nope', { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });
    expect(unknown.status).toBe(404);

    // The aggregated route takes the session now; with no server ready yet its initialize waits
    // for the first (so it can declare what that server has: initializeWait.ts), bounded by the ready window.
    let initialized = false;
    const connecting = b.client('/mcp').then((c) => ((initialized = true), c));
    await sleep(HELD_WINDOW_MS);
    expect(initialized).toBe(false);
    expect(b.stdout).toBe('');
    writeFileSync(gate, '');
    const { client: all } = await connecting;
    expect(all.getServerCapabilities()).toMatchObject({ tools: { listChanged: true } });
    expect((await all.listTools()).tools.map((t) => t.name)).toContain('slow__echo');
    const ready = await b.waitReady();
    expect(ready.servers).toEqual([{ id: 'slow', state: 'ready', tools: 4 }]);
    const { client } = await b.client('/mcp/slow');
    expect(await client.callTool({ name: 'echo', arguments: { text: 'late but here' } })).toMatchObject({
      content: [{ type: 'text', text: 'late but here' }],
    });
  });

  it('reports a server that cannot start with its reason: spawn error, exit code and stderr tail, start timeout', async () => {
    const b = await startBridge({
      config: {
        mcpServers: {
          good: nodeEntry(fixture('slowStartServer.mjs')),
          missing: { command: '/nonexistent/qiming-no-such-server' },
          crashy: nodeEntry(fixture('crashingServer.mjs'), ['--exit-on-start', '3']),
          never: nodeEntry(fixture('neverStartsServer.mjs'), [], { connectionTimeoutMs: 2500 }),
        },
      },
    });
    const byId = Object.fromEntries(b.ready!.servers.map((s) => [s.id, s]));
    expect(byId.good).toEqual({ id: 'good', state: 'ready', tools: 4 });
    for (const id of ['missing', 'crashy', 'never']) {
      expect(byId[id].state, id).not.toBe('ready');
      expect(byId[id].tools).toBe(0);
    }
    expect(byId.missing.error).toMatch(/qiming-no-such-server' not found \(ENOENT\)/);
    expect(byId.crashy.error).toMatch(/exited with code 3/);
    expect(byId.crashy.stderrTail).toContain('crashing: fatal: cannot open the database');
    expect(byId.never.error).toMatch(/no answer to initialize within 2500 ms/);
    expect(byId.never.stderrTail).toContain('never-starts: warming up the flux capacitor');

    // The good one serves; the others are refused with their state.
    const { client } = await b.client('/mcp/good');
    expect((await client.listTools()).tools).toHaveLength(4);
    const refused = await b.fetch('/mcp/crashy', { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });
    expect(refused.status).toBe(503);
    expect((await refused.json()).state).toBe((await b.server('crashy')).state);
  });

  it('does not hold the ready line past --ready-timeout: a server still starting is listed as such and joins later', async () => {
    const gate = join(tempDir(), 'start');
    const b = await startBridge({
      args: ['--ready-timeout', '1500'],
      config: {
        mcpServers: {
          quick: nodeEntry(fixture('slowStartServer.mjs')),
          late: nodeEntry(fixture('slowStartServer.mjs'), ['--gate', gate]),
        },
      },
    });
    const [quick, late] = b.ready!.servers;
    expect(late).toMatchObject({ id: 'late', state: 'starting', tools: 0 });
    // (On a loaded machine even the quick one may still be starting after 1.5 s.)
    expect(quick.id).toBe('quick');
    expect(['ready', 'starting']).toContain(quick.state);
    expect((await b.status()).bridge.state).toBe('ready');
    writeFileSync(gate, '');
    await b.waitServer('late', (s) => s.state === 'ready', 15_000, 'ready once its gate opens');
    const { client } = await b.client('/mcp/late');
    expect((await client.listTools()).tools).toHaveLength(4);
    expect(b.stdoutLines()).toHaveLength(1);
  });

  it('a busy port is a clear error and a non-zero exit, with nothing on stdout and no server started', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    const dir = tempDir();
    const pidFile = join(dir, 'pids');
    try {
      const b = spawnBridge({
        port,
        config: { mcpServers: { s: nodeEntry(fixture('slowStartServer.mjs'), ['--pid-file', pidFile]) } },
      });
      const exit = await b.waitExit(15_000);
      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      expect(b.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(b.stdout).toBe('');
      expect(existsSync(pidFile)).toBe(false);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});
