// Tool names are the server's text, and a pin file is a JSON object keyed by them: a tool named
// like a property every object has (`toString`, `constructor`, `__proto__`) is a new tool at
// first sight, pinned under its own name, and the same definition after a restart is no drift.
// The built CLI (stdio aggregation) under an SDK client, pins in a temp folder, `block`.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectProxy, ensureBuilt, tempDir, type ProxyHandle } from '../../helpers/proxyCli.js';
import { FIXTURES } from '../../helpers/paths.js';
import { launchPinPath } from '../../helpers/pinPaths.js';

const NAMED = join(FIXTURES, 'namedToolsServer.mjs');
const NAMES = ['echo', 'toString', 'constructor', '__proto__', 'hasOwnProperty'];

let handles: ProxyHandle[] = [];
let dirs: { path: string; remove: () => void }[] = [];

beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const h of handles) await h.close();
  handles = [];
  for (const d of dirs) d.remove();
  dirs = [];
});

async function proxy(dir: string): Promise<ProxyHandle> {
  const config = { mcpServers: { n: { command: process.execPath, args: [NAMED, ...NAMES] } }, pinning: 'block' };
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

describe('tools named like object properties', () => {
  it('are pinned at first sight and pass again after a restart', async () => {
    const d = tempDir('qiming-pin-names-');
    dirs.push(d);
    const want = NAMES.map((n) => `n__${n}`).sort();
    const first = await proxy(d.path);
    expect((await first.client.listTools()).tools.map((t) => t.name).sort()).toEqual(want);
    const res = await first.client.callTool({ name: 'n__constructor', arguments: {} });
    expect(JSON.stringify(res)).toContain('ran constructor');
    await first.close();
    handles = [];
    const file = launchPinPath(join(d.path, 'pins'), { command: process.execPath, args: [NAMED, ...NAMES] });
    const pins = JSON.parse(readFileSync(file, 'utf8')) as { tools: object };
    expect(Object.keys(pins.tools).sort()).toEqual([...NAMES].sort());

    const again = await proxy(d.path);
    expect((await again.client.listTools()).tools.map((t) => t.name).sort()).toEqual(want);
  }, 60_000);
});
