// A config entry the bridge cannot read (a wrong field, an unset variable) on the real built
// bridge: the other servers start, the bad one is failed with its reason in the ready line,
// /status and /events (no secret in any of them), Restart says why it cannot start, and the
// panel's fix of that entry starts it, without --watch: the bridge applies what its own
// routes wrote and the answer says what that did.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SECRET_MASK } from '../../../src/shared/configContract.js';
import {
  cleanupBridges,
  fixture,
  nodeEntry,
  rawRequest,
  startBridge,
  tempDir,
  waitNotRunning,
  type BridgeProcess,
} from '../../helpers/bridgeProcess.js';

afterEach(cleanupBridges);

const SECRET = 'sk-live-only-in-the-file-0123456789';
const PID_SERVER = fixture('pidServer.mjs');

/** A change through the panel's routes, as the page sends it. */
async function change(
  b: BridgeProcess,
  method: string,
  path: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, any> }> {
  const text = JSON.stringify(body);
  const r = await rawRequest(b.port, {
    method,
    path,
    headers: {
      Host: `127.0.0.1:${b.port}`,
      Authorization: `Bearer ${b.bearer}`,
      Origin: `http://127.0.0.1:${b.port}`,
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(text)),
    },
    body: text,
  });
  return { status: r.status, json: JSON.parse(r.body) as Record<string, any> };
}

describe('bridge: one bad entry', () => {
  it('starts the others, shows the bad one failed with its reason, and the panel fix starts it', async () => {
    const dir = tempDir();
    const file = join(dir, 'mcp.json');
    const badEntry = nodeEntry(PID_SERVER, [join(dir, 'bad.pids')], {
      env: { API_KEY: SECRET, DATA: '${QIMING_TEST_UNSET_DIR}' },
    });
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { good: nodeEntry(PID_SERVER, [join(dir, 'good.pids')]), bad: badEntry } }),
    );
    const b = await startBridge({ config: file, env: { QIMING_TEST_UNSET_DIR: undefined } });

    const reason = 'invalid config entry: env.DATA references ${QIMING_TEST_UNSET_DIR}, but that variable is not set';
    expect(b.ready!.servers).toEqual([
      { id: 'good', state: 'ready', tools: 3 },
      { id: 'bad', state: 'failed', tools: 0, error: expect.stringContaining(reason) },
    ]);
    const status = await b.status();
    expect(status.servers.find((s) => s.id === 'bad')).toMatchObject({
      state: 'failed',
      transport: 'stdio',
      lastError: expect.stringContaining(reason),
    });
    expect(JSON.stringify(status)).not.toContain(SECRET);
    expect(b.stdout + b.stderr).not.toContain(SECRET);
    expect(b.stderr).toContain('not started: server "bad": env.DATA references ${QIMING_TEST_UNSET_DIR}');

    // Restart cannot help, and says why; its own route is a failed server, not an unknown one.
    const restart = await b.fetch('/servers/bad/restart', { method: 'POST' });
    expect(restart.status).toBe(409);
    expect(((await restart.json()) as { error: string }).error).toContain(`server "bad" cannot start: ${reason}`);

    // The panel's fix (the secret sent back masked, kept), applied by the bridge itself.
    const fixed = await change(b, 'PUT', '/config/servers/bad', {
      entry: {
        kind: 'stdio',
        command: badEntry.command,
        args: badEntry.args,
        env: { API_KEY: SECRET_MASK, DATA: dir },
      },
    });
    expect(fixed.status).toBe(200);
    expect(fixed.json.applied).toMatchObject({ ok: true, added: ['bad'], unchanged: ['good'] });
    const running = await b.waitServer(
      'bad',
      (s) => s.state === 'ready' && s.pid !== undefined,
      15_000,
      'the fixed entry running',
    );
    b.remember(running.pid);
    expect(JSON.stringify(await b.status())).not.toContain(SECRET);
    expect(JSON.stringify(b.history)).not.toContain(SECRET);
  });

  it("applies its own panel's changes without --watch: an added server runs, a removed one stops", async () => {
    const dir = tempDir();
    const file = join(dir, 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { a: nodeEntry(PID_SERVER, [join(dir, 'a.pids')]) } }));
    const b = await startBridge({ config: file });
    const aPid = (await b.server('a')).pid;

    const added = await change(b, 'POST', '/config/servers', {
      id: 'extra',
      entry: { kind: 'stdio', command: process.execPath, args: [PID_SERVER, join(dir, 'x.pids')] },
    });
    expect(added.status).toBe(200);
    expect(added.json.applied).toEqual({
      ok: true,
      added: ['extra'],
      removed: [],
      restarted: [],
      unchanged: ['a'],
      options: [],
    });
    const extra = await b.waitServer(
      'extra',
      (s) => s.state === 'ready' && s.pid !== undefined,
      15_000,
      'the added server running',
    );
    b.remember(extra.pid);
    expect(b.stderr).toMatch(/config reloaded \(the panel changed the config\): added extra/);

    const removed = await change(b, 'DELETE', '/config/servers/extra', {});
    expect(removed.json.applied).toMatchObject({ ok: true, removed: ['extra'] });
    expect(await waitNotRunning(extra.pid!, 5000)).toBe(true);
    expect((await b.status()).servers.map((s) => [s.id, s.pid])).toEqual([['a', aPid]]);
  });
});
