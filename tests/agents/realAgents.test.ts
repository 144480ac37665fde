// Four real ACP agents from npm (gemini-cli, claude-code-acp, claude-agent-acp, codex-acp), each
// against a fake model API of its kind on loopback, driven by AcpEngine the way the app drives
// them, with the app's MCP chain: the agent spawns our stdio proxy, an aggregate over the
// bridge's servers. Each answers a plain prompt and calls a server's tool by name, and the
// tool's result, which only the server knows, reaches the model in the next request. Nothing
// leaves the machine (an outbound trap refuses it) and every process ends with the test.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import { AcpEngine } from '../../src/main/acp/acpEngine.js';
import { DEFAULT_ENTRY_NAME } from '../../src/main/acp/acp.js';
import { nodeCommand } from '../../src/main/runtime/cliPath.js';
import {
  ensureCli,
  FIXTURES,
  killQuietly,
  memoryLogger,
  notRunning,
  removeTempDirs,
  tempDir,
  waitAllNotRunning,
  writeConfig,
} from '../main/mainHarness.js';
import { descendantsOf } from '../helpers/procTree.js';
import { startOutboundTrap } from '../helpers/outboundTrap.js';
import { allowOnce, REAL_AGENTS, type ModelRequest, type RealAgent, type Script } from '../helpers/realAgents.js';

const HELLO = 'Say hello.';
const HELLO_ANSWER = 'Hello from the fake model.';
const CALL = 'Which process serves the fixture? Ask it.';
const CALL_ANSWER = 'The fixture server answered.';
/** How many agents run at once: two of them keep a loaded 2-core machine busy. */
const AT_ONCE = 2;

let cli: string;
let runtime: McpRuntime;
const pids = new Set<number>();
const figures: { agent: string; tools: number; tokens: number }[] = [];

beforeAll(async () => {
  cli = ensureCli();
  const dir = tempDir('qiming-agents-');
  const configFile = join(dir, 'mcp.json');
  writeConfig(configFile, {
    mcpServers: {
      fixture: { command: process.execPath, args: [join(FIXTURES, 'mcpFixtureServer.mjs'), '--name', 'fixture'] },
    },
  });
  runtime = new McpRuntime({ configFile, cliPath: cli, logger: memoryLogger().logger, watchConfig: false });
  runtime.on('status', (s) => {
    for (const p of [s.bridge.pid, ...s.servers.map((x) => x.pid)]) if (p) pids.add(p);
  });
  await runtime.start();
  await runtime.whenReady();
}, 60_000);

afterAll(async () => {
  await runtime?.stop({ deadlineMs: 3000 });
  for (const p of pids) if (!notRunning(p)) killQuietly(p);
  const left = await waitAllNotRunning([...pids], 3000);
  removeTempDirs();
  if (figures.length) console.log(`first-request tools, o200k tokens:\n${JSON.stringify(figures, null, 2)}`);
  if (left.length) throw new Error(`processes still running after the agents' tests: ${left.join(', ')}`);
});

/** Runs `fn` once fewer than {@link AT_ONCE} others run. */
const slots = { free: AT_ONCE, waiting: [] as (() => void)[] };
async function inSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (slots.free === 0) await new Promise<void>((resolve) => slots.waiting.push(resolve));
  else slots.free--;
  try {
    return await fn();
  } finally {
    const next = slots.waiting.shift();
    if (next) next();
    else slots.free++;
  }
}

/** o200k tokens of the tool definitions a request carried, as JSON. */
const toolTokens = (req: ModelRequest) => encode(JSON.stringify(req.toolDefinitions)).length;

/** What the agent said (its message chunks), joined. */
const agentText = (updates: SessionNotification[]) =>
  updates
    .map((n) => n.update)
    .flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : []))
    .join('');

/** One agent's session with the fake model and the aggregate; ends the agent and checks it left nothing. */
async function withAgent(
  agent: RealAgent,
  script: Script,
  body: (s: { engine: AcpEngine; sessionId: string; updates: SessionNotification[] }) => Promise<void>,
): Promise<{ requests: ModelRequest[]; refused: string[] }> {
  const home = tempDir(`qiming-${agent.name}-`);
  const cwd = join(home, 'project');
  mkdirSync(cwd);
  const trap = await startOutboundTrap();
  const model = await agent.startModel(script);
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', ...trap.env };
  const run = agent.launch(home, model.url, base);
  const updates: SessionNotification[] = [];
  const engine = new AcpEngine({
    ...run,
    cwd,
    runtime,
    mcp: { cliPath: cli, node: nodeCommand() },
    logger: memoryLogger().logger,
    onPermission: allowOnce,
    onSessionUpdate: (n) => updates.push(n),
  });
  let tree: number[] = [];
  try {
    await engine.start();
    const { sessionId } = await engine.newSession(cwd);
    await body({ engine, sessionId, updates });
  } finally {
    // The agent's whole tree (its helpers, our proxy) is known only while it runs.
    if (engine.pid !== undefined) tree = [engine.pid, ...descendantsOf(engine.pid)];
    await engine.stop({ deadlineMs: 5000 });
    await model.close();
    await trap.close();
  }
  const left = await waitAllNotRunning(tree, 8000);
  if (left.length) throw new Error(`${agent.name} left processes running: ${left.join(', ')}`);
  return { requests: model.requests, refused: trap.hosts };
}

describe('real ACP agents with fake model APIs, through the stdio aggregate', () => {
  for (const agent of REAL_AGENTS) {
    it.concurrent(
      `${agent.name} answers a prompt, and a server's tool result it called by name reaches the model`,
      async ({ expect }) => {
        const whoami = agent.toolName(DEFAULT_ENTRY_NAME, 'fixture__whoami');
        const script: Script = (req) => {
          // Side requests (titles, summaries) carry no tools of ours: plain text.
          if (!req.tools.includes(whoami)) return { text: 'ok' };
          if (req.prompt.includes(HELLO)) return { text: HELLO_ANSWER };
          if (req.prompt.includes(CALL) && req.toolResults.length === 0) return { tool: whoami, arguments: {} };
          return { text: CALL_ANSWER };
        };
        const { requests, refused } = await inSlot(() =>
          withAgent(agent, script, async ({ engine, sessionId, updates }) => {
            const hello = await engine.conn.agent.request('session/prompt', {
              sessionId,
              prompt: [{ type: 'text', text: HELLO }],
            });
            expect(hello.stopReason).toBe('end_turn');
            expect(agentText(updates)).toContain(HELLO_ANSWER);
            const call = await engine.conn.agent.request('session/prompt', {
              sessionId,
              prompt: [{ type: 'text', text: CALL }],
            });
            expect(call.stopReason).toBe('end_turn');
            expect(agentText(updates)).toContain(CALL_ANSWER);
          }),
        );
        const ours = requests.filter((r) => r.tools.includes(whoami));
        // The first request already lists the aggregate's tools under the agent's names for them.
        expect(ours[0].tools).toEqual(expect.arrayContaining([agent.toolName(DEFAULT_ENTRY_NAME, 'fixture__echo')]));
        figures.push({ agent: agent.name, tools: ours[0].tools.length, tokens: toolTokens(ours[0]) });
        // The request after the call carries the server's answer: its own pid, known to no one else.
        const serverPid = runtime.status().servers.find((s) => s.id === 'fixture')?.pid;
        expect(serverPid).toBeGreaterThan(0);
        const after = ours.find((r) => r.prompt.includes(CALL) && r.toolResults.length > 0);
        expect(after?.toolResults.join('\n')).toContain(String(serverPid));
        expect(refused.filter((h) => !agent.refusedHosts.includes(h))).toEqual([]);
      },
      180_000,
    );
  }
});
