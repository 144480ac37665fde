// A server's pins are its launch's (command and args, or url, as the config writes them): another
// server put under a known id is a first sight, while the same server's drifted tool is still
// withheld, whatever its id; a `${VAR}` in the launch stays a reference, so its value moving (an
// AppImage mounted elsewhere) keeps the pins; what the launch holds in clear never reaches the
// pins folder. Pins kept under a server id by an earlier version are taken over by the server
// they agree with, and are another server's when most of their tools differ. The built CLI
// (stdio aggregation) under an SDK client, the drifting and the named-tools fixture servers,
// pins in a temp folder, `block`.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectProxy, ensureBuilt, tempDir, waitFor, type ProxyHandle } from '../../helpers/proxyCli.js';
import { FIXTURES } from '../../helpers/paths.js';
import { launchPinPath, namedPinPath } from '../../helpers/pinPaths.js';
import { canonicalJson, sha256 } from '../../../src/proxy/pinning/canonicalTool.js';

const DRIFT = join(FIXTURES, 'driftServer.mjs');
const NAMED = join(FIXTURES, 'namedToolsServer.mjs');

let handles: ProxyHandle[] = [];
let dirs: { path: string; remove: () => void }[] = [];

beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const h of handles) await h.close();
  handles = [];
  for (const d of dirs) d.remove();
  dirs = [];
});

function folder(): string {
  const d = tempDir('qiming-pin-identity-');
  dirs.push(d);
  return d.path;
}

async function proxy(dir: string, entry: Record<string, unknown>, env: Record<string, string> = {}) {
  const config = { mcpServers: { d: entry }, pinning: 'block' };
  const h = await connectProxy(
    ['--config', JSON.stringify(config), '--no-watchdog'],
    {},
    {
      QIMING_PINS_DIR: join(dir, 'pins'),
      QIMING_PINNING: '',
      ...env,
    },
  );
  handles.push(h);
  return h;
}

async function stop(h: ProxyHandle): Promise<void> {
  await h.close();
  handles = handles.filter((x) => x !== h);
}

async function names(h: ProxyHandle): Promise<string[]> {
  return (await h.client.listTools()).tools.map((t) => t.name).sort();
}

async function callText(h: ProxyHandle, name: string): Promise<string> {
  try {
    return JSON.stringify(await h.client.callTool({ name, arguments: { text: 'hi' } }));
  } catch (err) {
    return (err as Error).message;
  }
}

/** Calls `d__drift` (the drifting server's `echo` changes) and waits for the list_changed that follows. */
async function drift(h: ProxyHandle): Promise<void> {
  let changed = false;
  h.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed = true));
  await h.client.callTool({ name: 'd__drift', arguments: {} });
  await waitFor(() => changed, 20_000);
}

/** A tool of namedToolsServer.mjs, as it lists it, and its pin as a pin file holds it. */
function namedTool(name: string, description = `The tool ${name}.`) {
  const definition = {
    name,
    description,
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  };
  return { hash: sha256(canonicalJson(definition)), definition, pinnedAt: '2026-01-01T00:00:00.000Z' };
}

/** A pin file as an earlier version wrote it: named after the server id, without a launch. */
function writeNamedPins(dir: string, id: string, tools: ReturnType<typeof namedTool>[]): string {
  mkdirSync(join(dir, 'pins'), { recursive: true });
  const file = namedPinPath(join(dir, 'pins'), id);
  const doc = {
    version: 1,
    server: id,
    tools: Object.fromEntries(tools.map((t) => [t.definition.name, t])),
    rejected: {},
  };
  writeFileSync(file, JSON.stringify(doc), { mode: 0o600 });
  return file;
}

describe('pins keyed by the launch', () => {
  it("another server under a known id is a first sight; the first one's drift is still withheld", async () => {
    const dir = folder();
    const driftLaunch = { command: process.execPath, args: [DRIFT, 'description', join(dir, 'phase')] };
    const first = await proxy(dir, driftLaunch);
    expect(await names(first)).toEqual(['d__drift', 'd__echo']);
    await drift(first);
    await waitFor(async () => !(await names(first)).includes('d__echo'), 20_000);
    await stop(first);

    // Another server under the same id, with a tool `echo` of its own: new, listed, callable.
    const namedLaunch = { command: process.execPath, args: [NAMED, 'echo', 'other'] };
    const other = await proxy(dir, namedLaunch);
    expect(await names(other)).toEqual(['d__echo', 'd__other']);
    expect(await callText(other, 'd__echo')).toContain('ran echo');
    expect(other.stderr.join('\n')).not.toContain('withheld');
    await stop(other);
    expect(readdirSync(join(dir, 'pins')).sort()).toEqual(
      [launchPinPath(join(dir, 'pins'), driftLaunch), launchPinPath(join(dir, 'pins'), namedLaunch)]
        .map((p) => p.slice(join(dir, 'pins').length + 1))
        .sort(),
    );

    // The drifting server again, under another id: its changed `echo` is still withheld.
    const again = await connectProxy(
      ['--config', JSON.stringify({ mcpServers: { renamed: driftLaunch }, pinning: 'block' }), '--no-watchdog'],
      {},
      { QIMING_PINS_DIR: join(dir, 'pins'), QIMING_PINNING: '' },
    );
    handles.push(again);
    expect(await names(again)).toEqual(['renamed__drift']);
    expect(await callText(again, 'renamed__echo')).toMatch(/withheld: its definition changed since it was pinned/);
  });

  it('a ${VAR} in the launch stays a reference: another value of it keeps the pins', async () => {
    const dir = folder();
    // The same node at another path, as an AppImage's executable is at every mount.
    const moved = join(dir, 'mount-2', 'node');
    mkdirSync(join(dir, 'mount-2'));
    symlinkSync(process.execPath, moved);
    const entry = { command: '${PIN_TEST_NODE}', args: [DRIFT, 'description', join(dir, 'phase')] };
    const first = await proxy(dir, entry, { PIN_TEST_NODE: process.execPath });
    expect(await names(first)).toEqual(['d__drift', 'd__echo']);
    await stop(first);
    writeFileSync(join(dir, 'phase'), 'after');
    const second = await proxy(dir, entry, { PIN_TEST_NODE: moved });
    expect(await names(second)).toEqual(['d__drift']);
    expect(await callText(second, 'd__echo')).toContain('changed since it was pinned');
    expect(existsSync(launchPinPath(join(dir, 'pins'), entry))).toBe(true);
  });

  it('a token written in clear in the args reaches no pin file, neither its name nor its text', async () => {
    const dir = folder();
    const token = `sk-pin-test-${Math.random().toString(36).slice(2)}`;
    const h = await proxy(dir, {
      command: process.execPath,
      args: [DRIFT, 'description', join(dir, 'phase'), `--token=${token}`],
    });
    expect(await names(h)).toEqual(['d__drift', 'd__echo']);
    await stop(h);
    const files = readdirSync(join(dir, 'pins'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^launch\.[0-9a-f]{64}\.json$/);
    expect(readFileSync(join(dir, 'pins', files[0]!), 'utf8')).not.toContain(token);
  });
});

describe('pins kept under a server id', () => {
  it('are taken over by the server most of whose tools they agree with: its changed tool is withheld', async () => {
    const dir = folder();
    const named = writeNamedPins(dir, 'd', [namedTool('a'), namedTool('b'), namedTool('c', 'What c said before.')]);
    const launch = { command: process.execPath, args: [NAMED, 'a', 'b', 'c'] };
    const h = await proxy(dir, launch);
    expect(await names(h)).toEqual(['d__a', 'd__b']);
    expect(await callText(h, 'd__c')).toMatch(/withheld: its definition changed since it was pinned \(description/);
    expect(h.stderr.join('\n')).toContain(`pins: taking over ${named} (2 of the tools both name agree, 1 differ)`);
    const doc = JSON.parse(readFileSync(launchPinPath(join(dir, 'pins'), launch), 'utf8'));
    expect(doc.tools.c.definition.description).toBe('What c said before.');
    expect(doc).toMatchObject({ server: 'd', launch: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // The file named after the id is left as it was.
    expect(existsSync(named)).toBe(true);
  });

  it("are another server's when most of their tools differ: the server is a first sight", async () => {
    const dir = folder();
    const named = writeNamedPins(dir, 'd', [
      namedTool('a'),
      namedTool('b', 'Another server said b.'),
      namedTool('c', 'Another server said c.'),
    ]);
    const before = readFileSync(named, 'utf8');
    const launch = { command: process.execPath, args: [NAMED, 'a', 'b', 'c'] };
    const h = await proxy(dir, launch);
    expect(await names(h)).toEqual(['d__a', 'd__b', 'd__c']);
    expect(await callText(h, 'd__c')).toContain('ran c');
    expect(h.stderr.join('\n')).toContain(
      `pins: ${named} was taken from another server (1 of the tools both name agree, 2 differ)`,
    );
    const doc = JSON.parse(readFileSync(launchPinPath(join(dir, 'pins'), launch), 'utf8'));
    expect(doc.tools.c.definition.description).toBe('The tool c.');
    expect(readFileSync(named, 'utf8')).toBe(before);
  });
});
