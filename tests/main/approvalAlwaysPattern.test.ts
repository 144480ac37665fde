// "Always allow" is for one tool. A server may name a tool `*` or `x?`, which the config's
// `"approval"` would read as a pattern: written there, the answer for that one tool would allow
// every tool of the server once the config is applied. The real bridge under McpRuntime, its ask
// answered over IPC; the config reloaded; the server's other tool still asks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpRuntime, type ApprovalAnswer, type ApprovalRequest } from '../../src/main/runtime/mcpRuntime.js';
import { cleanupRuntimes, ensureCli, FIXTURES, memoryLogger, tempDir, writeConfig } from './mainHarness.js';
import { callText } from '../helpers/toolText.js';

const SERVER = join(FIXTURES, 'namedToolsServer.mjs');

let runtime: McpRuntime;
let configFile: string;
let client: Client;
const log = memoryLogger();
const pids = new Set<number>();
const asked: ApprovalRequest[] = [];
let next: ApprovalAnswer = 'always';

beforeAll(async () => {
  configFile = join(tempDir('qiming-approval-pattern-'), 'mcp.json');
  writeConfig(configFile, {
    approvalTimeoutMs: 10_000,
    approval: 'ask',
    mcpServers: { n: { command: process.execPath, args: [SERVER, '*', 'delete_all'] } },
  });
  runtime = new McpRuntime({ configFile, cliPath: ensureCli(), logger: log.logger, watchConfig: false });
  runtime.on('status', (s) => {
    for (const p of [s.bridge.pid, ...s.servers.map((x) => x.pid)]) if (p) pids.add(p);
  });
  runtime.on('approval', (r) => {
    asked.push(r);
    r.answer(next);
  });
  await runtime.start();
  const bridge = await runtime.whenReady();
  client = new Client({ name: 'pattern-test-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${bridge.token}` } },
    }),
  );
}, 60_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  expect(await cleanupRuntimes([runtime], pids)).toEqual([]);
});

const call = (name: string): Promise<string> => callText(client, name);

describe('"Always allow" for a tool named like a pattern', () => {
  it('allows that tool, and never every tool of its server', async () => {
    next = 'always';
    // The aggregate gives `*` a name of the allowed characters; the question names the server's own.
    const star = (await client.listTools()).tools.map((t) => t.name).find((n) => n !== 'n__delete_all')!;
    expect(await call(star)).toBe('ran *');
    expect(asked.map((r) => r.tool)).toEqual(['*']);
    const written = JSON.parse(readFileSync(configFile, 'utf8')) as { mcpServers: { n: { approval?: unknown } } };
    expect(written.mcpServers.n.approval).toBeUndefined();
    await runtime.reload();
    next = 'deny';
    expect(await call('n__delete_all')).toMatch(/denied/);
    expect(asked.map((r) => r.tool)).toEqual(['*', 'delete_all']);
  }, 60_000);
});
