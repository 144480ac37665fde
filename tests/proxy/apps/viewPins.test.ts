// MCP Apps view pins are kept on disk like tool pins: a view first shown by one bridge is
// pinned in the pins folder; when the server gives another view after the bridge restarts,
// the view is refused as a drift that names the new hash, until that hash is accepted, and
// then it is shown (and stays accepted for the next bridge).
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers/proxyCli.js';
import { cleanupBridges, startBridge, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { FIXTURES } from '../../helpers/paths.js';
import { waitFor } from '../../helpers/waitFor.js';

const SERVER = join(FIXTURES, 'appView', 'appViewServer.mjs');

const dirs: { remove: () => void }[] = [];
afterEach(async () => {
  await cleanupBridges();
  for (const d of dirs.splice(0)) d.remove();
});

/** A bridge over the note server whose view is the file `view`, pinning into `pins`. */
function bridge(view: string, pins: string): Promise<BridgeProcess> {
  return startBridge({
    config: { mcpServers: { n: { command: process.execPath, args: [SERVER, '--view', view] } } },
    env: { QIMING_PINS_DIR: pins, QIMING_PINNING: 'block' },
    ipc: true,
  });
}

/** An agent's call of the tool with a view; the key of what the bridge kept for it. */
async function callWithView(b: BridgeProcess): Promise<string> {
  const { client } = await b.client('/mcp');
  await client.callTool({ name: 'n__show_note', arguments: { text: 'hi' } });
  const told = await waitFor(
    () => b.ipcMessages.find((m) => (m as { type?: string }).type === 'app-view') as { view: { key: string } },
    15_000,
    'the app-view message',
  );
  return told.view.key;
}

const page = (title: string) => `<!doctype html><html><body><h1>${title}</h1></body></html>`;

describe('view pins across a bridge restart', () => {
  it('refuses a changed view as a drift until it is accepted', async () => {
    const dir = tempDir('qiming-view-pins-');
    dirs.push(dir);
    const view = join(dir.path, 'view.html');
    const pins = join(dir.path, 'pins');
    writeFileSync(view, page('First view'));

    const first = await bridge(view, pins);
    const shown = await first.fetch(`/apps/views/${await callWithView(first)}`);
    expect(shown.status).toBe(200);
    expect(((await shown.json()) as { resource: { html: string } }).resource.html).toContain('First view');
    expect(readdirSync(pins).filter((f) => f.startsWith('views.'))).toHaveLength(1);
    await cleanupBridges();

    writeFileSync(view, page('Changed view'));
    const second = await bridge(view, pins);
    const key = await callWithView(second);
    const refused = await second.fetch(`/apps/views/${key}`);
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: string; drift: { server: string; uri: string; hash: string } };
    expect(body.error).toContain('drift');
    expect(body.drift).toMatchObject({ server: 'n', uri: 'ui://notes/view.html' });
    expect(body.drift.hash).toMatch(/^[0-9a-f]{64}$/);

    const accepted = await second.fetch(`/apps/views/${key}/accept`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ hash: body.drift.hash }),
    });
    expect(accepted.status).toBe(200);
    const now = await second.fetch(`/apps/views/${key}`);
    expect(now.status).toBe(200);
    expect(((await now.json()) as { resource: { html: string } }).resource.html).toContain('Changed view');
    await cleanupBridges();

    const third = await bridge(view, pins);
    expect((await third.fetch(`/apps/views/${await callWithView(third)}`)).status).toBe(200);
  });
});
