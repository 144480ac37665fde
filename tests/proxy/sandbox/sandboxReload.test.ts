// A config reload that changes one entry's sandbox, in the real bridge (SIGHUP): that server
// restarts under its new sandbox (a read it was refused now succeeds), the other keeps its
// process and has no restart.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupBridges, startBridge, waitFor } from '../../helpers/bridgeProcess.js';
import { callText, probeEntry, userFolders } from '../../helpers/sandboxKit.js';

const u = userFolders('sandbox-reload-');
afterEach(cleanupBridges);
afterAll(() => u.remove());

describe.skipIf(process.platform !== 'linux')("a reload that changes an entry's sandbox", () => {
  it('restarts only that server, and its new sandbox applies', async () => {
    const file = join(u.root, 'mcp.json');
    const notes = join(u.project, 'notes.txt');
    const config = (read: string[]) => ({
      mcpServers: { boxed: probeEntry({ filesystem: { read } }), other: probeEntry(true) },
    });
    writeFileSync(file, JSON.stringify(config([])));
    const b = await startBridge({ config: file, env: u.env });
    const ready = (id: string) => b.waitServer(id, (s) => s.state === 'ready' && s.pid !== undefined, 30_000, 'ready');
    const boxedBefore = await ready('boxed');
    const otherBefore = await ready('other');
    const before = await b.client('/mcp/boxed');
    expect(await callText(before.client, 'read', { path: notes })).toBe('error: ENOENT');

    writeFileSync(file, JSON.stringify(config([u.project])));
    b.child.kill('SIGHUP');
    const boxedAfter = await b.waitServer(
      'boxed',
      (s) => s.state === 'ready' && s.pid !== undefined && s.pid !== boxedBefore.pid,
      30_000,
      'restarted with its new sandbox',
    );
    expect(boxedAfter.sandbox?.read).toEqual([u.project]);
    await waitFor(() => /config reloaded/.test(b.stderr), 15_000, 'the reload logged');
    const after = await b.client('/mcp/boxed');
    expect(await callText(after.client, 'read', { path: notes })).toBe('ok: project notes');
    const otherAfter = await b.server('other');
    expect(otherAfter.pid).toBe(otherBefore.pid);
    expect(otherAfter.restarts).toBe(otherBefore.restarts);
    expect(otherAfter.state).toBe('ready');
  }, 90_000);
});
