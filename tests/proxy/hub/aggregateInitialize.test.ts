// The stdio aggregation's `initialize` does not wait for the slowest server (initializeWait.ts):
// it is answered while a server that starts only once its gate file exists is still starting,
// the first tools/list still waits for that server and has its tools once the gate opens, and a
// server that comes up after that list (its first start timed out, its retry succeeds)
// arrives with tools/list_changed. Real fixture servers under the built CLI.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, FIXTURES } from '../../helpers/paths.js';
import { ensureBuilt, tempDir, waitFor, waitNoProcess } from '../../helpers/proxyCli.js';

const SLOW = join(FIXTURES, 'slowStartServer.mjs');
let transport: StdioClientTransport | undefined;
let client: Client | undefined;
let dir: { path: string; remove: () => void } | undefined;

beforeAll(() => ensureBuilt());
afterEach(async () => {
  const pid = transport?.pid;
  await client?.close().catch(() => undefined);
  if (pid) expect(await waitNoProcess(pid, 15_000)).toBe(true);
  transport = client = undefined;
  dir?.remove();
  dir = undefined;
});

/** Rejects with `what` if `p` has not settled within `ms` (a generous bound: the wait it guards is minutes). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

it('answers initialize while a server is still starting, lists its tools once it is up, and a later one with list_changed', async () => {
  dir = tempDir();
  const slowGate = join(dir.path, 'slow.go');
  const laterGate = join(dir.path, 'later.go');
  const node = (args: string[], extra: Record<string, unknown> = {}) => ({
    command: process.execPath,
    args: [SLOW, ...args],
    ...extra,
  });
  const config = {
    mcpServers: {
      quick: node([]),
      // Starts only once its gate exists; nothing else would settle it for two minutes.
      slow: node(['--gate', slowGate], { connectionTimeoutMs: 120_000 }),
      // Its first start times out (gate closed); a retry after the gate opens succeeds.
      later: node(['--gate', laterGate], { connectionTimeoutMs: 2_000 }),
    },
  };
  // The ready window is two minutes: an initialize held for the slowest server would not come for that long.
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--config', JSON.stringify(config), '--no-watchdog', '--ready-timeout', '120000'],
    stderr: 'pipe',
  });
  const c = (client = new Client({ name: 'test-client', version: '1.0.0' }));
  await within(c.connect(transport), 45_000, 'initialize was not answered while the slow server waited for its gate');
  expect(existsSync(slowGate)).toBe(false); // the slow server was still starting when initialize was answered
  expect(c.getServerCapabilities()).toMatchObject({
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { listChanged: true },
  });
  let changes = 0;
  c.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);

  // The first list waits for the server still in its first start, and has its tools.
  const listing = c.listTools();
  writeFileSync(slowGate, '');
  const first = (await listing).tools.map((t) => t.name);
  expect(first).toEqual(expect.arrayContaining(['quick__echo', 'slow__echo']));
  expect(first.some((n) => n.startsWith('later__'))).toBe(false);

  // A server that comes up after that list arrives with list_changed.
  writeFileSync(laterGate, '');
  await waitFor(() => changes > 0, 30_000, 'tools/list_changed once the later server is up');
  await waitFor(
    async () => (await c.listTools()).tools.some((t) => t.name === 'later__echo'),
    10_000,
    'later__echo listed',
  );
  expect(await c.callTool({ name: 'later__echo', arguments: { text: 'late' } })).toMatchObject({
    content: [{ type: 'text', text: 'late' }],
  });
}, 90_000);
