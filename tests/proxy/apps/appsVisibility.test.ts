// MCP Apps toward servers and agents: the proxy declares io.modelcontextprotocol/ui (with the
// view mime type) to every server in both eras unless `"apps": false`; a tool whose
// `_meta.ui.visibility` lacks "model" is listed to no agent (stdio aggregation, the bridge's
// /mcp and /mcp/<id>) and an agent's call of it is refused before it reaches the server.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectProxy, tempDir, type ProxyHandle } from '../../helpers/proxyCli.js';
import { cleanupBridges, startBridge } from '../../helpers/bridgeProcess.js';
import { FIXTURES } from '../../helpers/paths.js';

const SERVER = join(FIXTURES, 'appView', 'appViewServer.mjs');
const DECLARED = { mimeTypes: ['text/html;profile=mcp-app'] };

const open: ProxyHandle[] = [];
const dirs: { remove: () => void }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
  for (const d of dirs.splice(0)) d.remove();
  await cleanupBridges();
});

function entry(ran: string, era = 'legacy') {
  return { command: process.execPath, args: [SERVER, '--era', era, '--ran', ran] };
}

function ranFile(): { ran: string; tools: () => string[] } {
  const dir = tempDir('qiming-apps-');
  dirs.push(dir);
  const ran = join(dir.path, 'ran.txt');
  return { ran, tools: () => (existsSync(ran) ? readFileSync(ran, 'utf8').split('\n').filter(Boolean) : []) };
}

async function proxy(top: Record<string, unknown>, ran: string, era?: string): Promise<ProxyHandle> {
  const h = await connectProxy(['--config', JSON.stringify({ ...top, mcpServers: { n: entry(ran, era) } })]);
  open.push(h);
  return h;
}

const textOf = (r: Record<string, unknown>) => (r.content as { text?: string }[])[0]?.text ?? '';

describe('MCP Apps declared to servers', () => {
  it.each(['legacy', 'modern'])('declares the extension with its mime type to a %s server', async (era) => {
    const { ran } = ranFile();
    const h = await proxy({}, ran, era);
    expect(JSON.parse(textOf(await h.client.callTool({ name: 'n__declared', arguments: {} })))).toEqual(DECLARED);
  });

  it.each(['legacy', 'modern'])('"apps": false declares nothing to a %s server and lists every tool', async (era) => {
    const { ran } = ranFile();
    const h = await proxy({ apps: false }, ran, era);
    expect(textOf(await h.client.callTool({ name: 'n__declared', arguments: {} }))).toBe('null');
    const names = (await h.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('n__app_refresh');
  });
});

describe('tools only for the app view', () => {
  it('stdio aggregation lists no app-only tool and refuses a call of one before the server', async () => {
    const { ran, tools } = ranFile();
    const h = await proxy({}, ran);
    const names = (await h.client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(['n__declared', 'n__model_only', 'n__show_note']);
    const r = await h.client.callTool({ name: 'n__app_refresh', arguments: {} });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('is for its app view only');
    expect((r._meta as Record<string, { policy?: string }>)['dev.qiming/refusal']?.policy).toBe('visibility');
    expect(textOf(await h.client.callTool({ name: 'n__show_note', arguments: { text: 'hi' } }))).toBe('note: hi');
    expect(tools()).toEqual(['show_note']);
  });

  it('the bridge lists it on neither /mcp nor /mcp/<id> and refuses it on both', async () => {
    const { ran, tools } = ranFile();
    const b = await startBridge({ config: { mcpServers: { n: entry(ran) } } });
    const { client: one } = await b.client('/mcp/n');
    expect((await one.listTools()).tools.map((t) => t.name)).not.toContain('app_refresh');
    expect((await one.callTool({ name: 'app_refresh', arguments: {} })).isError).toBe(true);
    const { client: all } = await b.client('/mcp');
    expect((await all.listTools()).tools.map((t) => t.name)).not.toContain('n__app_refresh');
    expect((await all.callTool({ name: 'n__app_refresh', arguments: {} })).isError).toBe(true);
    expect(tools()).toEqual([]);
  });
});
