// Which list of tools applies to each agent session, as the bridge's status and the app's
// (McpRuntime, from the bridge's status) say it: a real bridge whose servers weigh more than
// toolBudgetTokens under "toolExposure": "auto", and AcpEngine driving the fixture ACP agent
// posing as Claude (it searches by itself: every tool, over its stdio proxy), as gemini-cli (the
// runtime's search, over its stdio proxy) and as Copilot (the runtime's search, over its http
// entry). What each agent was handed matches what the status says; an ended session stays
// listed with no connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import { AcpEngine } from '../../src/main/acp/acpEngine.js';
import { DEFAULT_ENTRY_NAME } from '../../src/main/acp/acp.js';
import { nodeCommand } from '../../src/main/runtime/cliPath.js';
import type { AgentSessionStatus, RuntimeStatus } from '../../src/shared/status.js';
import {
  cleanupRuntimes,
  ensureCli,
  everythingEntry,
  FIXTURES,
  memoryEntry,
  memoryLogger,
  tempDir,
  waitFor,
  writeConfig,
} from './mainHarness.js';
import { descendantsOf } from '../helpers/procTree.js';

const AGENT = join(FIXTURES, 'acpAgent.mjs');
const CLAUDE = '@agentclientprotocol/claude-agent-acp';

let runtime: McpRuntime;
const engines: AcpEngine[] = [];
const pids = new Set<number>();

beforeAll(async () => {
  const dir = tempDir('qiming-agent-exposure-');
  const configFile = join(dir, 'mcp.json');
  // Below what the two servers' tools weigh: the aggregate lists by search.
  writeConfig(configFile, {
    toolExposure: 'auto',
    toolBudgetTokens: 1000,
    mcpServers: { everything: everythingEntry(), memory: memoryEntry(dir) },
  });
  runtime = new McpRuntime({ configFile, cliPath: ensureCli(), logger: memoryLogger().logger, watchConfig: false });
  runtime.on('status', (s) => {
    for (const p of [s.bridge.pid, ...s.servers.map((x) => x.pid)]) if (p) pids.add(p);
  });
  await runtime.start();
  await runtime.whenReady();
});

afterAll(async () => {
  for (const e of engines) await e.stop({ deadlineMs: 3000 });
  expect(await cleanupRuntimes(runtime ? [runtime] : [], pids)).toEqual([]);
});

/** A session of the fixture agent started with `args`; the tools its one entry listed. */
async function session(args: string[]): Promise<{ engine: AcpEngine; tools: string[] }> {
  const engine = new AcpEngine({
    command: process.execPath,
    args: [AGENT, ...args],
    runtime,
    mcp: { cliPath: ensureCli(), node: nodeCommand() },
    logger: memoryLogger().logger,
  });
  engines.push(engine);
  await engine.start();
  pids.add(engine.pid!);
  const res = await engine.newSession(tempDir('qiming-agent-exposure-cwd-'));
  for (const p of descendantsOf(engine.pid!)) pids.add(p);
  const mcp = (res._meta as { mcp: Record<string, { tools: string[] }> }).mcp;
  return { engine, tools: mcp[DEFAULT_ENTRY_NAME]!.tools };
}

/** The agent sessions the bridge's own `/status` lists. */
async function bridgeAgents(): Promise<AgentSessionStatus[] | undefined> {
  const { url, token } = await runtime.whenReady();
  const res = await fetch(`${url}/status`, { headers: { Authorization: `Bearer ${token}` } });
  return ((await res.json()) as RuntimeStatus).economy?.agents;
}

describe('the economy view of each agent session', () => {
  it('lists Claude with every tool (it searches by itself) and gemini and Copilot with the search, in the bridge and the app', async () => {
    const claude = await session(['--name', CLAUDE]);
    const gemini = await session(['--name', 'gemini-cli']);
    const copilot = await session(['--http', '--name', 'Copilot', '--drop-stdio']);
    // What each was handed: Claude every tool and no meta-tool, the others the meta-tools.
    expect(claude.tools).toContain('memory__create_entities');
    expect(claude.tools).not.toContain('search_tools');
    expect(gemini.tools).toContain('search_tools');
    expect(gemini.tools).not.toContain('memory__create_entities');
    expect(copilot.tools).toContain('search_tools');

    const want = [
      { agent: 'Copilot', transport: 'http', listedBy: 'runtime', tools: 'search', connections: 1 },
      // Its stdio proxy links to the bridge once per server.
      { agent: 'gemini-cli', transport: 'stdio', listedBy: 'runtime', tools: 'search', connections: 2 },
      { agent: CLAUDE, transport: 'stdio', listedBy: 'agent', tools: 'all', connections: 2 },
    ];
    const shape = (list: AgentSessionStatus[] | undefined) =>
      list?.map(({ agent, transport, listedBy, tools, connections }) => ({
        agent,
        transport,
        listedBy,
        tools,
        connections,
      }));
    const fromBridge = await bridgeAgents();
    expect(shape(fromBridge)).toEqual(want);
    expect(fromBridge!.map((s) => s.id)).toEqual([3, 2, 1]);
    for (const s of fromBridge!) expect(Date.parse(s.startedAt)).not.toBeNaN();
    expect((await runtime.whenReady()) && runtime.status().economy?.inForce).toBe('search');
    // The app reads the same from the bridge's status events.
    await waitFor(() => shape(runtime.status().economy?.agents)?.length === 3, 10_000, "the app's agent sessions");
    expect(shape(runtime.status().economy?.agents)).toEqual(want);

    // An ended session stays listed, with no connection and when it ended.
    await claude.engine.stop({ deadlineMs: 3000 });
    const ended = await waitFor(
      () => runtime.status().economy?.agents?.find((s) => s.agent === CLAUDE && s.connections === 0),
      10_000,
      "Claude's session ended",
    );
    expect(Date.parse(ended.endedAt!)).toBeGreaterThanOrEqual(Date.parse(ended.startedAt));
    expect((await bridgeAgents())?.find((s) => s.agent === CLAUDE)).toMatchObject({
      connections: 0,
      listedBy: 'agent',
    });
  });
});
