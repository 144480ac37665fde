// The six real ACP agents from npm (claude-agent-acp, codex-acp, gemini-cli, opencode, copilot,
// qwen-code), each against a fake model API of its kind on loopback, driven by AcpEngine with its
// default options, the way the app drives them, over the bridge's 22 replayed servers (389
// tools, tests/fixtures/toolCatalog/) under the default `"toolExposure": "auto"`. For each: the
// runtime chose the entry the agent takes (stdio, or http for Copilot); the first prompt's model
// request already has the runtime's tools, handed as the agent hands them (by name, behind the
// runtime's search for agents that do not search themselves, behind the agent's own search for
// those that do, with no second search layer); a call reaches the server and its answer the
// model; the agent's stdio proxy logs into the tailed file; the agent's permission prompts for the
// runtime's tool are answered by the approval policy, never the app; and nothing runs after stop. Nothing
// leaves the machine (an outbound trap refuses it). `QIMING_AGENT_RUNS=2` runs each agent twice
// (`npm run test:agents`).
import { afterAll, beforeAll, describe, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { RequestPermissionRequest, SessionNotification } from '@agentclientprotocol/sdk';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import { AcpEngine } from '../../src/main/acp/acpEngine.js';
import { DEFAULT_ENTRY_NAME } from '../../src/main/acp/acp.js';
import { nodeCommand } from '../../src/main/runtime/cliPath.js';
import { LogTail, type TailEntry } from '../../src/main/logs/logTail.js';
import {
  ensureCli,
  killQuietly,
  memoryLogger,
  notRunning,
  removeTempDirs,
  tempDir,
  waitAllNotRunning,
  waitFor,
  writeConfig,
} from '../main/mainHarness.js';
import { catalogServers, CATALOG_IDS } from '../helpers/catalogSet.js';
import { descendantsOf } from '../helpers/procTree.js';
import { startOutboundTrap } from '../helpers/outboundTrap.js';
import {
  allowOnce,
  REAL_AGENTS,
  type AgentName,
  type ModelRequest,
  type RealAgent,
  type Script,
} from '../helpers/realAgents.js';

/** The tool the prompt needs, as the aggregate names it; in `search` mode it is deferred. */
const TARGET = 'github__search_repositories';
const QUERY = 'search for GitHub repositories';
/** A prompt that needs the tool; its marker travels in the call's arguments to the server and back. */
const promptText = (marker: string) => `Find the GitHub repositories about "${marker}".`;
const MARKER_RE = /"(marker-[a-z0-9-]+)"/;
const ANSWER = 'GitHub was searched.';
/** How many agents run at once: two of them keep a loaded 2-core machine busy. */
const AT_ONCE = 2;
/** Runs of each agent (QIMING_AGENT_RUNS; `npm run test:agents` sets 2). */
const RUNS = Math.max(1, Number(process.env.QIMING_AGENT_RUNS ?? '1') || 1);
/** The agents that keep MCP tools behind a search of their own: under `auto` they get every tool and no meta-tools. */
const SEARCH_THEMSELVES: ReadonlySet<AgentName> = new Set(['claude-agent-acp', 'codex-acp', 'qwen-code']);
/** The agent that drops stdio entries: it gets the bridge's `/mcp` over http, and runs no proxy of ours. */
const HTTP_AGENTS: ReadonlySet<AgentName> = new Set(['copilot']);

/** Prompts that still reach the app: OpenCode asks for `call_tool` before it says which tool it calls. */
const APP_ASKED: Partial<Record<AgentName, string[]>> = { opencode: [`${DEFAULT_ENTRY_NAME}_call_tool`] };

interface Figure {
  agent: string;
  run: number;
  /** Tokens (o200k) of the tool definitions of the first request, all of them and the entry's. */
  tools: number;
  ours: number;
  route: string;
  seconds: number;
}

let cli: string;
let runtime: McpRuntime;
const pids = new Set<number>();
const figures: Figure[] = [];

beforeAll(async () => {
  cli = ensureCli();
  const dir = tempDir('qiming-agents-');
  const configFile = join(dir, 'mcp.json');
  writeConfig(configFile, { mcpServers: catalogServers() });
  runtime = new McpRuntime({ configFile, cliPath: cli, logger: memoryLogger().logger, watchConfig: false });
  runtime.on('status', (s) => {
    for (const p of [s.bridge.pid, ...s.servers.map((x) => x.pid)]) if (p) pids.add(p);
  });
  await runtime.start();
  await runtime.whenReady();
}, 90_000);

afterAll(async () => {
  await runtime?.stop({ deadlineMs: 3000 });
  for (const p of pids) if (!notRunning(p)) killQuietly(p);
  const left = await waitAllNotRunning([...pids], 3000);
  removeTempDirs();
  if (figures.length) console.log(figureTable());
  if (left.length) throw new Error(`processes still running after the agents' tests: ${left.join(', ')}`);
});

/** The figures as markdown rows (docs/agents.md, "Runs"). */
function figureTable(): string {
  const rows = REAL_AGENTS.flatMap((a) => figures.filter((f) => f.agent === a.name).sort((x, y) => x.run - y.run));
  return [
    `first model request's tools (o200k tokens), ${CATALOG_IDS.length} replayed servers, toolExposure auto:`,
    "| agent | run | tools | of which the runtime's | how the model reached the tool | seconds |",
    '|---|---:|---:|---:|---|---:|',
    ...rows.map((f) => `| ${[f.agent, f.run, f.tools, f.ours, f.route, f.seconds].join(' | ')} |`),
  ].join('\n');
}

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

/** A tool result's text with JSON string escapes dropped (agents wrap results in JSON of their own). */
const plain = (text: string | undefined) => (text ?? '').replace(/\\/g, '');

/** The server's own answer to the call: the replay names its server and echoes the arguments. */
const fromServer = (text: string | undefined, marker: string) =>
  plain(text).includes('"server":"github"') && plain(text).includes(`"query":"${marker}"`);

/** What the agent said (its message chunks), joined. */
const agentText = (updates: SessionNotification[]) =>
  updates
    .map((n) => n.update)
    .flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : []))
    .join('');

/**
 * The fake model's part, for a prompt with a marker: it calls the tool by name where the agent
 * lists it; else it finds it with the runtime's `search_tools` (then calls it by name once the
 * agent re-listed, else through `call_tool`), or with the agent's own search. Once the server
 * answered, it answers. Requests without a marker or without tools (titles, summaries) get plain
 * text. `routes` gets the tools called for each marker, in order.
 */
function reachTool(agent: RealAgent, routes: Map<string, string[]>): Script {
  const byName = agent.toolName(DEFAULT_ENTRY_NAME, TARGET);
  const search = agent.toolName(DEFAULT_ENTRY_NAME, 'search_tools');
  const callTool = agent.toolName(DEFAULT_ENTRY_NAME, 'call_tool');
  const args = (marker: string) => ({ query: marker });
  return (req) => {
    const marker = MARKER_RE.exec(req.prompt)?.[1];
    if (!marker || req.tools.length === 0) return { text: 'ok' };
    const turn = (tool: string, a: Record<string, unknown>) => {
      routes.set(marker, [...(routes.get(marker) ?? []), tool]);
      return { tool, arguments: a };
    };
    const results = req.toolResults;
    if (results.some((t) => fromServer(t, marker))) return { text: ANSWER };
    if (req.tools.includes(byName)) return turn(byName, args(marker));
    if (req.tools.includes(search)) {
      if (results.length === 0) return turn(search, { query: QUERY });
      if (plain(results.at(-1)).includes(`"name":"${TARGET}"`))
        return turn(callTool, { name: TARGET, arguments: args(marker) });
    }
    const own = agent.ownSearch;
    if (own && req.tools.includes(own.tool)) {
      if (results.length === 0) return turn(own.tool, own.args(byName));
      if (results.length === 1 && own.found === 'tool_call')
        return turn('tool_call', { name: byName, arguments: args(marker) });
    }
    return { text: `the tool was not reached: ${plain(results.at(-1)).slice(0, 300)}` };
  };
}

interface Run {
  /** The session's prompt with `marker`: the model requests of that prompt that carried tools. */
  send(marker: string): Promise<ModelRequest[]>;
  updates: SessionNotification[];
  /** Permission requests that reached the app. */
  appAsked: RequestPermissionRequest[];
  /** What the tail of the proxies' log file delivered. */
  tailed: TailEntry[];
}

/** One agent process with the fake model and one session; ends it and checks it left nothing running. */
async function withAgent(
  agent: RealAgent,
  routes: Map<string, string[]>,
  body: (run: Run) => Promise<void>,
): Promise<{ refused: string[]; unanswered: string[]; started: number }> {
  const started = Date.now();
  const home = tempDir(`qiming-${agent.name}-`);
  const cwd = join(home, 'project');
  mkdirSync(cwd);
  const logFile = join(home, 'logs', 'proxies.log');
  const tailed: TailEntry[] = [];
  const tail = new LogTail({ path: logFile, onEntry: (e) => tailed.push(e), startAt: 'start', pollMs: 200 });
  await tail.start();
  const trap = await startOutboundTrap();
  const model = await agent.startModel(reachTool(agent, routes));
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', ...trap.env };
  const updates: SessionNotification[] = [];
  const appAsked: RequestPermissionRequest[] = [];
  const engine = new AcpEngine({
    ...agent.launch(home, model.url, base),
    cwd,
    runtime,
    mcp: { cliPath: cli, node: nodeCommand(), logFile },
    logger: memoryLogger().logger,
    onPermission: (req) => {
      appAsked.push(req);
      return allowOnce(req);
    },
    onSessionUpdate: (n) => updates.push(n),
  });
  let tree: number[] = [];
  try {
    await engine.start();
    const { sessionId } = await engine.newSession(cwd);
    await agent.afterSession?.(engine.conn, sessionId);
    await body({
      updates,
      appAsked,
      tailed,
      send: async (marker) => {
        const from = model.requests.length;
        const res = await engine.conn.agent.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: promptText(marker) }],
        });
        if (res.stopReason !== 'end_turn') throw new Error(`${agent.name} stopped with ${res.stopReason}`);
        return model.requests.slice(from).filter((r) => r.prompt.includes(marker) && r.tools.length > 0);
      },
    });
  } finally {
    // The agent's whole tree (its helpers, our proxies) is known only while it runs.
    if (engine.pid !== undefined) tree = [engine.pid, ...descendantsOf(engine.pid)];
    await engine.stop({ deadlineMs: 5000 });
    await model.close();
    await trap.close();
    await tail.stop();
  }
  const left = await waitAllNotRunning(tree, 8000);
  if (left.length) throw new Error(`${agent.name} left processes running: ${left.join(', ')}`);
  return { refused: trap.hosts, unanswered: model.unanswered, started };
}

describe(`real ACP agents with AcpEngine's defaults, over the bridge's ${CATALOG_IDS.length} servers`, () => {
  for (const agent of REAL_AGENTS)
    for (let run = 1; run <= RUNS; run++) {
      const searchesItself = SEARCH_THEMSELVES.has(agent.name);
      const overHttp = HTTP_AGENTS.has(agent.name);
      it.concurrent(
        `${agent.name}${RUNS > 1 ? ` (run ${run})` : ''}: the first prompt has ${
          searchesItself
            ? "every one of the runtime's tools and no meta-tool"
            : "the runtime's tools behind search_tools"
        }, and a call reaches the server ${overHttp ? 'over http' : 'through its stdio proxy'}`,
        async ({ expect }) => {
          const routes = new Map<string, string[]>();
          const marker = `marker-${agent.name.replace(/[^a-z]/g, '')}-${run}`;
          const byName = agent.toolName(DEFAULT_ENTRY_NAME, TARGET);
          const search = agent.toolName(DEFAULT_ENTRY_NAME, 'search_tools');
          const {
            refused,
            unanswered,
            started: at,
          } = await inSlot(() =>
            withAgent(agent, routes, async ({ send, updates, appAsked, tailed }) => {
              const requests = await send(marker);
              const first = requests[0];
              expect(first, 'a model request with tools').toBeDefined();
              const firstText = JSON.stringify(first.body);
              // One search layer: the runtime's meta-tools only for an agent that does not search itself.
              if (searchesItself) {
                expect(first.tools).not.toContain(search);
                expect(firstText.includes(search), `${search} nowhere in the request`).toBe(false);
              } else {
                expect(first.tools).toContain(search);
                expect(first.tools).toContain(agent.toolName(DEFAULT_ENTRY_NAME, 'call_tool'));
                expect(first.tools).not.toContain(byName);
              }
              // The tool is there on the first prompt: listed, or in the agent's list of deferred tools.
              if (agent.ownSearch?.found === 'tool_call')
                expect(firstText.includes(byName), `${byName} in the list of deferred tools`).toBe(true);
              if (!searchesItself || agent.ownSearch) expect(first.tools).not.toContain(byName);
              else expect(first.tools).toContain(byName);

              // The call reached the server, and its answer the model.
              const answered = requests.some((r) => r.toolResults.some((t) => fromServer(t, marker)));
              expect(answered, JSON.stringify(requests.map((r) => r.toolResults).at(-1))).toBe(true);
              expect(agentText(updates)).toContain(ANSWER);
              // The approval policy (off by default: allow) answered the agent's permission prompts for the runtime's tools.
              expect(appAsked.map((r) => r.toolCall.title ?? r.toolCall.toolCallId)).toEqual(
                APP_ASKED[agent.name] ?? [],
              );
              // The agent's proxy (the app's grandchild) logs into the tailed file; an http agent runs none.
              if (overHttp) expect(tailed).toEqual([]);
              else
                await waitFor(
                  () => tailed.some((e) => e.message.includes(`stdio aggregation of ${CATALOG_IDS.length} server(s)`)),
                  10_000,
                  "the agent's proxy's start line through the log tail",
                );
              const tokens = (defs: ModelRequest['definitions']) =>
                defs.length ? encode(JSON.stringify(defs.map((d) => d.definition))).length : 0;
              figures.push({
                agent: agent.name,
                run,
                tools: tokens(first.definitions),
                ours: tokens(first.definitions.filter((d) => d.name.includes(DEFAULT_ENTRY_NAME))),
                route: (routes.get(marker) ?? []).join(' → '),
                seconds: 0,
              });
            }),
          );
          // Start to stop of the agent, its session and its prompt.
          const figure = figures.find((f) => f.agent === agent.name && f.run === run);
          if (figure) figure.seconds = Math.round((Date.now() - at) / 1000);
          expect(refused.filter((h) => !agent.refusedHosts.includes(h))).toEqual([]);
          expect(unanswered).toEqual([]);
        },
        240_000,
      );
    }
});
