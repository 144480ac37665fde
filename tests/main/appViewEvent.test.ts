// McpRuntime's `appView` event: an agent's call of a tool with an MCP Apps view, through the
// app's real bridge, is told to the app with the server, the tool, the arguments, the key the
// view is fetched by, and Claude Code's `_meta["claudecode/toolUseId"]` (its ACP toolCallId);
// a call of a tool without a view is not told. Through an ACP agent's stdio proxy (AcpEngine
// driving the fixture agent), the client named is the agent, not its proxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import type { AppViewEvent } from '../../src/shared/appView.js';
import type { KeptAppView } from '../../src/shared/appView.js';
import { cleanupRuntimes, ensureCli, FIXTURES, memoryLogger, tempDir, writeConfig } from './mainHarness.js';
import { waitFor } from '../helpers/waitFor.js';
import { AcpEngine } from '../../src/main/acp/acpEngine.js';
import { DEFAULT_ENTRY_NAME } from '../../src/main/acp/acp.js';
import { nodeCommand } from '../../src/main/runtime/cliPath.js';
import { descendantsOf } from '../helpers/procTree.js';

let runtime: McpRuntime;
let client: Client;
let engine: AcpEngine | undefined;
let bridge: { url: string; token: string };
const pids = new Set<number>();
const told: AppViewEvent[] = [];

beforeAll(async () => {
  const dir = tempDir('qiming-app-view-');
  const configFile = join(dir, 'mcp.json');
  writeConfig(configFile, {
    mcpServers: { notes: { command: process.execPath, args: [join(FIXTURES, 'appView', 'appViewServer.mjs')] } },
  });
  runtime = new McpRuntime({ configFile, cliPath: ensureCli(), logger: memoryLogger().logger, watchConfig: false });
  runtime.on('status', (s) => {
    for (const p of [s.bridge.pid, ...s.servers.map((x) => x.pid)]) if (p) pids.add(p);
  });
  runtime.on('appView', (v) => told.push(v));
  await runtime.start();
  bridge = await runtime.whenReady();
  client = new Client({ name: 'claude-code', version: '2.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${bridge.token}` } },
    }),
  );
}, 60_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await engine?.stop({ deadlineMs: 3000 });
  expect(await cleanupRuntimes([runtime], pids)).toEqual([]);
});

describe('the appView event', () => {
  it('tells a call with a view, with the ids that match it to the agent’s tool call', async () => {
    await client.callTool({ name: 'notes__declared', arguments: {} });
    await client.callTool({
      name: 'notes__show_note',
      arguments: { text: 'hi' },
      _meta: { 'claudecode/toolUseId': 'toolu_01ABC' },
    });
    const v = await waitFor(() => told[0], 15_000, 'the appView event');
    expect(v).toMatchObject({
      server: 'notes',
      tool: 'show_note',
      resourceUri: 'ui://notes/view.html',
      arguments: { text: 'hi' },
      toolUseId: 'toolu_01ABC',
      client: 'claude-code',
    });
    expect(told).toHaveLength(1);
    // The key fetches what the view needs: the input, the whole result and its resource.
    const kept = (await (
      await fetch(`${bridge.url}/apps/views/${v.key}`, { headers: { Authorization: `Bearer ${bridge.token}` } })
    ).json()) as KeptAppView;
    expect(kept.result).toMatchObject({ content: [{ type: 'text', text: 'note: hi' }] });
    expect(kept.resource.html).toContain('Note view');
    expect(kept.resource.csp).toEqual({ connectDomains: [] });
    expect(new URL(kept.sandbox!).port).not.toBe(new URL(bridge.url).port);
  });

  it('names the ACP agent that made the call, not its stdio proxy', async () => {
    engine = new AcpEngine({
      command: process.execPath,
      args: [join(FIXTURES, 'acpAgent.mjs')],
      runtime,
      mcp: { cliPath: ensureCli(), node: nodeCommand() },
      logger: memoryLogger().logger,
    });
    await engine.start();
    pids.add(engine.pid!);
    const { sessionId } = await engine.newSession(tempDir('qiming-app-view-cwd-'));
    for (const p of descendantsOf(engine.pid!)) pids.add(p);
    const before = told.length;
    const res = await engine.conn.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: `call ${DEFAULT_ENTRY_NAME} notes__show_note ${JSON.stringify({ text: 'acp' })}` },
      ],
    });
    expect((res._meta as { result?: unknown }).result).toMatchObject({ content: [{ text: 'note: acp' }] });
    const v = await waitFor(() => told[before], 15_000, 'the appView event of the agent’s call');
    expect(v).toMatchObject({
      server: 'notes',
      tool: 'show_note',
      arguments: { text: 'acp' },
      client: 'fixture-agent',
    });
    const kept = (await (
      await fetch(`${bridge.url}/apps/views/${v.key}`, { headers: { Authorization: `Bearer ${bridge.token}` } })
    ).json()) as KeptAppView;
    expect(kept.client).toBe('fixture-agent');
  });
});
