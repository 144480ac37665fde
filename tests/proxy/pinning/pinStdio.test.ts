// Tool pinning in the stdio aggregation: the built CLI under an SDK client, the drifting fixture
// server (tests/fixtures/driftServer.mjs), pins in a temp folder.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import {
  CLI,
  connectProxy,
  ensureBuilt,
  tempDir,
  waitFor,
  waitNoProcess,
  type ProxyHandle,
} from '../../helpers/proxyCli.js';
import { FIXTURES } from '../../helpers/paths.js';
import { launchPinPath } from '../../helpers/pinPaths.js';

const DRIFT = join(FIXTURES, 'driftServer.mjs');

let handles: ProxyHandle[] = [];
let dirs: { path: string; remove: () => void }[] = [];

beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const h of handles) await h.close();
  handles = [];
  for (const d of dirs) d.remove();
  dirs = [];
});

function folder() {
  const d = tempDir('qiming-pin-');
  dirs.push(d);
  return d.path;
}

/** How the drifting server is launched in `dir`, in `mode`. */
function launch(dir: string, mode: string) {
  return { command: process.execPath, args: [DRIFT, mode, join(dir, 'phase')] };
}

/** The pin file of that server. */
function pinFileOf(dir: string, mode: string): string {
  return launchPinPath(join(dir, 'pins'), launch(dir, mode));
}

async function proxy(
  dir: string,
  mode: string,
  top: Record<string, unknown> = {},
  entry: Record<string, unknown> = {},
) {
  const config = {
    mcpServers: { d: { ...launch(dir, mode), ...entry } },
    ...top,
  };
  const h = await connectProxy(
    ['--config', JSON.stringify(config), '--no-watchdog'],
    {},
    {
      QIMING_PINS_DIR: join(dir, 'pins'),
      QIMING_PINNING: '',
    },
  );
  handles.push(h);
  return h;
}

async function names(h: ProxyHandle): Promise<string[]> {
  return (await h.client.listTools()).tools.map((t) => t.name).sort();
}

/** What a call of a withheld tool is told: the text of its refusal, a tool result with isError (hub/policyRefusal.ts). */
async function callError(h: ProxyHandle, name: string): Promise<string> {
  const res = await h.client.callTool({ name, arguments: { text: 'hi' } });
  return res.isError ? (res.content as { text: string }[])[0]!.text : `not refused: ${JSON.stringify(res)}`;
}

/** Calls `drift` and waits for the list_changed that follows. */
async function drift(h: ProxyHandle): Promise<void> {
  let changed = false;
  h.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed = true));
  await h.client.callTool({ name: 'd__drift', arguments: {} });
  await waitFor(() => changed, 20_000);
}

/** The bytes of the CLI's answer to `tools/list` after `initialize`, over raw stdio. */
async function rawToolsList(dir: string, pinning: string): Promise<string> {
  const config = {
    mcpServers: { d: { command: process.execPath, args: [DRIFT, 'poison', join(dir, 'phase')] } },
    pinning,
  };
  const child = spawn(process.execPath, [CLI, '--config', JSON.stringify(config), '--no-watchdog'], {
    env: { ...process.env, QIMING_PINS_DIR: join(dir, 'pins'), QIMING_PINNING: '' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const lines = createInterface({ input: child.stdout! });
  const answer = new Promise<string>((resolve) =>
    lines.on('line', (l) => {
      if (l.includes('"id":2')) resolve(l);
    }),
  );
  const send = (m: unknown) => child.stdin!.write(`${JSON.stringify(m)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const line = await answer;
  child.stdin!.end();
  await waitNoProcess(child.pid!, 8000);
  return line;
}

describe('tool pinning (stdio aggregation)', () => {
  it('off and a block with nothing drifted hand the client the same bytes', async () => {
    const off = await rawToolsList(folder(), 'off');
    const block = await rawToolsList(folder(), 'block');
    expect(block).toBe(off);
    expect(off).toContain('"name":"d__echo"');
  });

  it('block (the default): a changed description is withheld, a call to it says what changed', async () => {
    const dir = folder();
    const h = await proxy(dir, 'description');
    expect(await names(h)).toEqual(['d__drift', 'd__echo']);
    const pinFile = pinFileOf(dir, 'description');
    await waitFor(() => existsSync(pinFile), 10_000);
    const pins = JSON.parse(readFileSync(pinFile, 'utf8'));
    expect(pins.tools.echo.definition.description).toBe('Echoes the text it is given.');
    expect(pins.tools.echo.hash).toMatch(/^[0-9a-f]{64}$/);
    await drift(h);
    await waitFor(async () => !(await names(h)).includes('d__echo'), 20_000);
    expect(await names(h)).toEqual(['d__drift']);
    const msg = await callError(h, 'd__echo');
    expect(msg).toContain('changed');
    expect(msg).toContain('description');
    expect(h.stderr.join('\n')).toContain('tool "echo" changed since it was pinned (description changed)');
    // The pin is still the first definition.
    expect(JSON.parse(readFileSync(pinFile, 'utf8')).tools.echo.definition.description).toBe(
      'Echoes the text it is given.',
    );
  });

  it('a restart listing the same definitions is no drift; one listing the drifted ones is', async () => {
    const dir = folder();
    let h = await proxy(dir, 'description');
    expect(await names(h)).toContain('d__echo');
    await h.close();
    handles = [];
    h = await proxy(dir, 'description');
    expect(await names(h)).toEqual(['d__drift', 'd__echo']);
    expect(h.stderr.join('\n')).not.toContain('pinned (');
    await h.close();
    handles = [];
    writeFileSync(join(dir, 'phase'), 'after');
    h = await proxy(dir, 'description');
    expect(await names(h)).toEqual(['d__drift']);
    expect(await callError(h, 'd__echo')).toContain('changed');
  });

  it('a renamed tool (same definition, new name) is a drift', async () => {
    const dir = folder();
    const h = await proxy(dir, 'rename');
    expect(await names(h)).toEqual(['d__drift', 'd__echo']);
    await drift(h);
    await waitFor(async () => !(await names(h)).includes('d__echo'), 20_000);
    expect(await names(h)).toEqual(['d__drift']);
    const msg = await callError(h, 'd__echo_v2');
    expect(msg).toContain('changed');
    expect(msg).toContain('"echo" renamed');
  });

  it('a hidden instruction added to a description is withheld', async () => {
    const dir = folder();
    const h = await proxy(dir, 'poison');
    await names(h);
    await drift(h);
    await waitFor(async () => !(await names(h)).includes('d__echo'), 20_000);
    const tools = (await h.client.listTools()).tools;
    expect(JSON.stringify(tools)).not.toContain('id_rsa');
    expect(await callError(h, 'd__echo')).toContain('changed');
  });

  it('a removed tool that comes back with another definition is a drift', async () => {
    const dir = folder();
    let h = await proxy(dir, 'description');
    await names(h);
    await h.close();
    handles = [];
    // The server no longer lists `echo`; its pin outlives its absence ...
    writeFileSync(join(dir, 'phase'), 'gone');
    h = await proxy(dir, 'description');
    expect(await names(h)).toEqual(['d__drift']);
    expect(Object.keys(JSON.parse(readFileSync(pinFileOf(dir, 'description'), 'utf8')).tools).sort()).toEqual([
      'drift',
      'echo',
    ]);
    // ... so when it comes back changed, it is not taken as new.
    await drift(h);
    await waitFor(() => h.stderr.join('\n').includes('tool "echo" changed since it was pinned'), 20_000);
    expect(await names(h)).toEqual(['d__drift']);
    expect(await callError(h, 'd__echo')).toContain('changed');
  });

  it('warn: the changed tool passes and the drift is logged', async () => {
    const dir = folder();
    const h = await proxy(dir, 'poison', { pinning: 'warn' });
    await names(h);
    await drift(h);
    await waitFor(() => h.stderr.join('\n').includes('passed (pinning: warn)'), 20_000);
    const echo = (await h.client.listTools()).tools.find((t) => t.name === 'd__echo');
    expect(echo?.description).toContain('id_rsa');
    expect((await h.client.callTool({ name: 'd__echo', arguments: { text: 'hi' } })).content).toEqual([
      { type: 'text', text: 'hi' },
    ]);
  });

  it("an entry's own pinning wins over the top level", async () => {
    const dir = folder();
    const h = await proxy(dir, 'description', { pinning: 'block' }, { pinning: 'warn' });
    await names(h);
    await drift(h);
    await waitFor(
      async () => (await h.client.listTools()).tools.some((t) => t.description?.includes('capitals')),
      20_000,
    );
  });

  it('off: lists pass as the server sent them, and no pin is written', async () => {
    const dir = folder();
    const h = await proxy(dir, 'poison', { pinning: 'off' });
    const first = await h.client.listTools();
    expect(first.tools.find((t) => t.name === 'd__echo')).toEqual({
      name: 'd__echo',
      description: 'Echoes the text it is given.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      annotations: { readOnlyHint: true },
    });
    await drift(h);
    await waitFor(async () => JSON.stringify((await h.client.listTools()).tools).includes('id_rsa'), 20_000);
    expect(existsSync(join(dir, 'pins')) ? readdirSync(join(dir, 'pins')) : []).toEqual([]);
  });

  it("an unreadable pin file withholds the server's tools, never takes them as new", async () => {
    const dir = folder();
    const h0 = await proxy(dir, 'description');
    await names(h0);
    await h0.close();
    handles = [];
    const pinFile = pinFileOf(dir, 'description');
    writeFileSync(pinFile, '{"version": 1, "tools": ');
    const h = await proxy(dir, 'description');
    expect(await names(h)).toEqual([]);
    expect(h.stderr.join('\n')).toContain(
      `pins: ${pinFile} is not valid JSON; its tools are unverified until accepted`,
    );
    expect(await callError(h, 'd__echo')).toContain('changed');
    // The file is left as it was for the user to look at.
    expect(readFileSync(pinFile, 'utf8')).toBe('{"version": 1, "tools": ');
  });
});
