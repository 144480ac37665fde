// The app answers the approval policy's ask: McpRuntime's `approval` event, raised by the real
// bridge over its IPC channel, answered Allow once, Deny, Always allow (written to the config)
// and not at all (the deadline denies); with no listener nobody is asked. A client on the
// bridge's /mcp, and the agents' chain (a stdio proxy whose `bridge` entry reaches the bridge over
// a stream link), where the bridge alone decides: the user is asked once per call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpRuntime, type ApprovalAnswer, type ApprovalRequest } from '../../src/main/runtime/mcpRuntime.js';
import { bridgeUpstream } from '../../src/main/acp/acp.js';
import { askWithDialog, type ApprovalBoxOptions } from '../../src/main/app/approvalDialog.js';
import { TOKEN_ENV } from '../../src/proxy/index.js';
import { cleanupRuntimes, ensureCli, FIXTURES, memoryLogger, tempDir, writeConfig } from './mainHarness.js';
import { connectProxy, type ProxyHandle } from '../helpers/proxyCli.js';
import { waitFor } from '../helpers/waitFor.js';

const SERVER = join(FIXTURES, 'annotatedToolsServer.mjs');
const SECRET_ARG = 'argument-value-51c2e8';
/** The ask's deadline: long enough for a loaded machine to answer at once, short for the unanswered case. */
const ASK_TIMEOUT_MS = 4000;

let runtime: McpRuntime;
let configFile: string;
let client: Client;
let chain: ProxyHandle | undefined;
const log = memoryLogger();
const pids = new Set<number>();
const asked: ApprovalRequest[] = [];
/** What the app's listener answers next; `silent`: it never answers. */
let next: ApprovalAnswer | 'silent' = 'once';
let unlisten: () => void = () => {};

const listen = () =>
  runtime.on('approval', (r) => {
    asked.push(r);
    if (next !== 'silent') r.answer(next);
  });

beforeAll(async () => {
  const dir = tempDir('qiming-approval-app-');
  configFile = join(dir, 'mcp.json');
  writeConfig(configFile, {
    approvalTimeoutMs: ASK_TIMEOUT_MS,
    mcpServers: {
      a: { command: process.execPath, args: [SERVER] },
      m: { command: process.execPath, args: [join(FIXTURES, 'metaEchoServer.mjs')] },
    },
  });
  runtime = new McpRuntime({ configFile, cliPath: ensureCli(), logger: log.logger, watchConfig: false });
  runtime.on('status', (s) => {
    for (const p of [s.bridge.pid, ...s.servers.map((x) => x.pid)]) if (p) pids.add(p);
  });
  unlisten = listen();
  await runtime.start();
  const bridge = await runtime.whenReady();
  client = new Client({ name: 'approval-test-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${bridge.token}` } },
    }),
  );
}, 60_000);

afterAll(async () => {
  await chain?.close();
  await client?.close().catch(() => undefined);
  expect(await cleanupRuntimes([runtime], pids)).toEqual([]);
});

async function call(c: Client, name: string) {
  try {
    const r = await c.callTool({ name, arguments: { text: SECRET_ARG } });
    return (r.content as { text?: string }[])[0]?.text ?? '';
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

describe('the app answers an approval ask', () => {
  it('Allow once runs the call; the request names server, tool, client and arguments', async () => {
    next = 'once';
    asked.length = 0;
    expect(await call(client, 'a__delete_note')).toBe('delete_note ran (text)');
    expect(asked).toHaveLength(1);
    const r = asked[0]!;
    expect([r.server, r.tool, r.client, r.clientVersion, r.arguments, r.rule]).toEqual([
      'a',
      'delete_note',
      'approval-test-client',
      '1.0.0',
      { text: SECRET_ARG },
      'annotations (destructiveHint)',
    ]);
    expect(r.deadline).toBeGreaterThan(Date.now() - ASK_TIMEOUT_MS);
  });

  it('Deny refuses it', async () => {
    next = 'deny';
    expect(await call(client, 'a__delete_note')).toMatch(/denied.*answered Deny when the app asked/);
  });

  it('no answer is a deny at the deadline', async () => {
    next = 'silent';
    asked.length = 0;
    expect(await call(client, 'a__delete_note')).toMatch(/denied.*nobody answered the app within 4000 ms/);
    expect(asked).toHaveLength(1);
    // A late answer changes nothing.
    asked[0]!.answer('once');
  });

  it('Always allow runs it, is written to the config, and is not asked again', async () => {
    next = 'always';
    asked.length = 0;
    expect(await call(client, 'a__write_note')).toBe('write_note ran (text)');
    expect(await call(client, 'a__write_note')).toBe('write_note ran (text)');
    expect(asked).toHaveLength(1);
    const written = JSON.parse(readFileSync(configFile, 'utf8')) as { mcpServers: { a: { approval?: unknown } } };
    expect(written.mcpServers.a.approval).toEqual({ write_note: 'allow' });
  });

  it("over the agents' chain the bridge decides, and the user is asked once", async () => {
    const bridge = await runtime.whenReady();
    next = 'once';
    asked.length = 0;
    chain = await connectProxy(
      [
        '--config',
        JSON.stringify({ mcpServers: { a: bridgeUpstream(bridge.url, 'a'), m: bridgeUpstream(bridge.url, 'm') } }),
      ],
      {},
      {
        [TOKEN_ENV]: bridge.token,
      },
    );
    expect(await call(chain.client, 'a__delete_note')).toBe('delete_note ran (text)');
    expect(asked.map((r) => r.tool)).toEqual(['delete_note']);
    // The question names the agent (the proxy's own client), not the proxy the bridge sees.
    expect([asked[0]!.client, asked[0]!.clientVersion]).toEqual(['test-client', '1.0.0']);
    const decided = /approval: server "a" tool "delete_note" for test-client \(session \d+\)/;
    await waitFor(() => decided.test(log.lines.join('\n')), 10_000, "the bridge's decision line naming the agent");
    expect(chain.stderr.join('\n')).not.toContain('approval:');
    // Who called stops at the bridge: the server gets the call's _meta without it.
    const meta = await chain.client.callTool({ name: 'm__meta', arguments: {} });
    expect((meta.content as { text: string }[])[0].text).not.toContain('caller');
  });

  it("the demo app's dialog names agent, server, tool and arguments, and its buttons answer", async () => {
    unlisten();
    const boxes: ApprovalBoxOptions[] = [];
    let press = 0;
    const detach = askWithDialog(runtime, {
      showMessageBox: async (o) => {
        boxes.push(o);
        return { response: press };
      },
    });
    expect(await call(client, 'a__delete_note')).toBe('delete_note ran (text)');
    press = 2;
    expect(await call(client, 'a__delete_note')).toMatch(/denied.*answered Deny/);
    detach();
    expect(boxes).toHaveLength(2);
    expect(boxes[0]!.buttons).toEqual(['Allow once', 'Always allow', 'Deny']);
    expect(boxes[0]!.message).toBe('approval-test-client (1.0.0) wants to run the tool "delete_note" of server "a".');
    expect(boxes[0]!.detail).toContain(`"text": "${SECRET_ARG}"`);
    unlisten = listen();
  });

  it('with no listener nobody is asked: the call is refused and says how to allow it', async () => {
    unlisten();
    asked.length = 0;
    const refused = await call(client, 'a__delete_note');
    expect(refused).toMatch(/denied/);
    expect(refused).toContain('"approval": {"delete_note": "allow"}');
    expect(asked).toHaveLength(0);
    unlisten = listen();
  });

  it('logs every decision and never an argument value', () => {
    const text = log.lines.join('\n');
    expect(text).toMatch(
      /approval: server "a" tool "delete_note" for approval-test-client \(session \d+\): allow \(once\) by the app answered/,
    );
    expect(text).toMatch(/approval: server "a" tool "delete_note" .*: deny by nobody answered the app within 4000 ms/);
    expect(text).toMatch(/"Always allow" for server "a" tool "write_note" written to/);
    expect(text).not.toContain(SECRET_ARG);
  });
});
