// An allow given in an agent's own permission prompt is granted to the bridge's ask for that
// one tool of that one server: server `a` with tool `b__c` and server `a__b` with tool `c`
// spell the same joined name, and a grant for either never answers the other's ask. A real
// bridge (McpRuntime), real fixture servers, a client on the bridge's /mcp.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpRuntime, type ApprovalRequest } from '../../src/main/runtime/mcpRuntime.js';
import { cleanupRuntimes, ensureCli, FIXTURES, memoryLogger, tempDir, writeConfig } from './mainHarness.js';
import { callText } from '../helpers/toolText.js';

const SERVER = join(FIXTURES, 'namedToolsServer.mjs');

let runtime: McpRuntime;
let client: Client;
const pids = new Set<number>();
const asked: ApprovalRequest[] = [];
/** Exposed names on the bridge's aggregate, by `<server> <tool>`. */
const exposed = new Map<string, string>();

beforeAll(async () => {
  const dir = tempDir('qiming-approval-grants-');
  const configFile = join(dir, 'mcp.json');
  writeConfig(configFile, {
    approval: 'ask',
    approvalTimeoutMs: 30_000,
    mcpServers: {
      a: { command: process.execPath, args: [SERVER, 'b__c'] },
      a__b: { command: process.execPath, args: [SERVER, 'c'] },
    },
  });
  runtime = new McpRuntime({ configFile, cliPath: ensureCli(), logger: memoryLogger().logger, watchConfig: false });
  runtime.on('status', (s) => {
    for (const p of [s.bridge.pid, ...s.servers.map((x) => x.pid)]) if (p) pids.add(p);
  });
  // Every question the grants do not answer is denied, so a wrongly taken grant shows as a call that ran.
  runtime.on('approval', (r) => {
    asked.push(r);
    r.answer('deny');
  });
  await runtime.start();
  const bridge = await runtime.whenReady();
  client = new Client({ name: 'grant-test-client', version: '2.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${bridge.token}` } },
    }),
  );
  const { tools } = await client.listTools();
  for (const t of tools) {
    const r = (await runtime.approvalFor(t.name))!;
    exposed.set(`${r.server} ${r.tool}`, t.name);
  }
}, 60_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  expect(await cleanupRuntimes([runtime], pids)).toEqual([]);
});

const call = (name: string): Promise<string> => callText(client, name);

describe('a grant from an agent prompt', () => {
  it("the bridge reads each aggregate name as its own server's tool", () => {
    expect([...exposed.keys()].sort()).toEqual(['a b__c', 'a__b c']);
    expect(exposed.get('a__b c')).toBe('a__b__c');
    expect(exposed.get('a b__c')).not.toBe('a__b__c');
  });

  it('for server a__b tool c answers only that ask, not server a tool b__c', async () => {
    asked.length = 0;
    runtime.grantOnce('a__b', 'c');
    expect(await call(exposed.get('a b__c')!)).toMatch(/denied/);
    expect(asked.map((r) => [r.server, r.tool])).toEqual([['a', 'b__c']]);
    expect(await call(exposed.get('a__b c')!)).toBe('ran c');
    expect(asked).toHaveLength(1);
  });

  it('for server a tool b__c answers only that ask, not server a__b tool c', async () => {
    asked.length = 0;
    runtime.grantOnce('a', 'b__c');
    expect(await call(exposed.get('a__b c')!)).toMatch(/denied/);
    expect(asked.map((r) => [r.server, r.tool])).toEqual([['a__b', 'c']]);
    expect(await call(exposed.get('a b__c')!)).toBe('ran b__c');
    expect(asked).toHaveLength(1);
  });

  it('is taken once', async () => {
    asked.length = 0;
    runtime.grantOnce('a__b', 'c');
    expect(await call('a__b__c')).toBe('ran c');
    expect(await call('a__b__c')).toMatch(/denied/);
    expect(asked.map((r) => [r.server, r.tool])).toEqual([['a__b', 'c']]);
  });
});
