// Four real ACP agents from npm (gemini-cli, claude-code-acp, claude-agent-acp, codex-acp), each
// against a fake model API of its kind on loopback, driven by AcpEngine the way the app drives
// them, with the app's MCP chain: the agent spawns our stdio proxy, an aggregate over the
// bridge's 22 replayed servers (tests/fixtures/toolCatalog/). In `all` mode the model calls a
// server's tool by name; in `search` mode the tool is deferred, and the model finds it with
// `search_tools` and calls it by name once the agent re-listed, else through `call_tool`. Either
// way the server's answer must reach the model in the next request. The tools each agent sent
// in its first request of each mode are counted (o200k). Nothing leaves the machine (an
// outbound trap refuses it) and every process ends with the test.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import { AcpEngine, type AcpRuntimeLike } from '../../src/main/acp/acpEngine.js';
import { DEFAULT_ENTRY_NAME } from '../../src/main/acp/acp.js';
import { nodeCommand } from '../../src/main/runtime/cliPath.js';
import {
  ensureCli,
  killQuietly,
  memoryLogger,
  notRunning,
  removeTempDirs,
  tempDir,
  waitAllNotRunning,
  writeConfig,
} from '../main/mainHarness.js';
import { catalogServers, CATALOG_IDS } from '../helpers/catalogSet.js';
import { descendantsOf } from '../helpers/procTree.js';
import { startOutboundTrap } from '../helpers/outboundTrap.js';
import { allowOnce, REAL_AGENTS, type ModelRequest, type RealAgent, type Script } from '../helpers/realAgents.js';

/** The tool the prompt needs, as the aggregate names it; `search` mode defers it. */
const TARGET = 'github__search_repositories';
const QUERY = 'search for GitHub repositories';
/** A prompt that needs the tool; its marker travels in the call's arguments to the server and back. */
const promptText = (marker: string) => `Find the GitHub repositories about "${marker}".`;
const MARKER_RE = /"(marker-[a-z0-9]+)"/;
const ANSWER = 'GitHub was searched.';
/** How many agents run at once: two of them keep a loaded 2-core machine busy. */
const AT_ONCE = 2;

type Mode = 'all' | 'search';
interface Figure {
  agent: string;
  /** Tokens of the first request's tools in `all` mode: all of them, and the aggregate's. */
  all: number;
  allOurs: number;
  search: number;
  searchOurs: number;
  /** How the found tool was called right after the search. */
  found: Route;
  /** How it was called on the session's next prompt (by name once the agent re-listed). */
  next: Route;
}
type Route = 'by name' | 'call_tool';

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

/** The figures as the markdown rows of docs/BENCHMARKS.md, "Tool economy: what agents are handed". */
function figureTable(): string {
  const rows = REAL_AGENTS.flatMap((a) => figures.filter((f) => f.agent === a.name));
  return [
    `first model request's tools (o200k tokens), ${CATALOG_IDS.length} replayed servers:`,
    '| agent | all | of which ours | search | of which ours | all / search | found tool called | on the next prompt |',
    '|---|---:|---:|---:|---:|---:|---|---|',
    ...rows.map(
      (f) =>
        `| ${[f.agent, f.all, f.allOurs, f.search, f.searchOurs, (f.all / f.search).toFixed(1), f.found, f.next].join(' | ')} |`,
    ),
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

/** o200k tokens of the tool definitions a request carried, as JSON. */
const toolTokens = (req: ModelRequest) => encode(JSON.stringify(req.toolDefinitions)).length;
/** o200k tokens of the definitions of the aggregate's tools among them (the agent's names for the entry's tools). */
const ourTokens = (agent: RealAgent, req: ModelRequest) => {
  const prefix = agent.toolName(DEFAULT_ENTRY_NAME, '');
  const ours = req.definitions.filter((d) => d.name.startsWith(prefix)).map((d) => d.definition);
  return ours.length ? encode(JSON.stringify(ours)).length : 0;
};

/** A tool result's text with JSON string escapes dropped (agents wrap results in JSON of their own). */
const plain = (text: string | undefined) => (text ?? '').replace(/\\/g, '');

/** What the agent said (its message chunks), joined. */
const agentText = (updates: SessionNotification[]) =>
  updates
    .map((n) => n.update)
    .flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : []))
    .join('');

/**
 * The fake model's part, for a prompt with a marker: it calls the tool by name when the agent
 * lists it, else searches with `search_tools` and calls what it found (by name when the agent
 * listed it since, else through `call_tool`); once the server answered, it answers. Requests
 * without a marker or without tools (titles, summaries) get plain text.
 */
function deferredToolScript(agent: RealAgent, calls: { marker: string; tool: string }[]): Script {
  const byName = agent.toolName(DEFAULT_ENTRY_NAME, TARGET);
  const search = agent.toolName(DEFAULT_ENTRY_NAME, 'search_tools');
  const callTool = agent.toolName(DEFAULT_ENTRY_NAME, 'call_tool');
  return (req) => {
    const marker = MARKER_RE.exec(req.prompt)?.[1];
    if (!marker || req.tools.length === 0) return { text: 'ok' };
    const turn = (tool: string, args: Record<string, unknown>) => {
      calls.push({ marker, tool });
      return { tool, arguments: args };
    };
    const call = () =>
      req.tools.includes(byName)
        ? turn(byName, { query: marker })
        : turn(callTool, { name: TARGET, arguments: { query: marker } });
    const last = plain(req.toolResults.at(-1));
    if (req.toolResults.length === 0) {
      if (req.tools.includes(byName)) return call();
      if (req.tools.includes(search)) return turn(search, { query: QUERY });
      return { text: ANSWER }; // the agent keeps the tool behind a search of its own
    }
    if (last.includes(`"name":"${TARGET}"`)) return call(); // search_tools found it
    return { text: fromServer(last, marker) ? ANSWER : `no answer from the server: ${last.slice(0, 300)}` };
  };
}

/** The server's own answer to the call: the replay names its server and echoes the arguments. */
const fromServer = (text: string | undefined, marker: string) =>
  plain(text).includes('"server":"github"') && plain(text).includes(`"query":"${marker}"`);

interface Run {
  /** Opens a session whose aggregate lists in `mode`. */
  open(mode: Mode): Promise<string>;
  /** Sends the session the prompt with `marker`; resolves with the model requests of that prompt. */
  send(sessionId: string, marker: string): Promise<ModelRequest[]>;
  /** How the tool was called for `marker`, or undefined when it was not. */
  route(marker: string): Route | undefined;
  updates: SessionNotification[];
}

/** One agent process with the fake model; ends it and checks it left nothing running. */
async function withAgent(agent: RealAgent, body: (run: Run) => Promise<void>): Promise<{ refused: string[] }> {
  const home = tempDir(`qiming-${agent.name}-`);
  const cwd = join(home, 'project');
  mkdirSync(cwd);
  const trap = await startOutboundTrap();
  const calls: { marker: string; tool: string }[] = [];
  const model = await agent.startModel(deferredToolScript(agent, calls));
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', ...trap.env };
  const launch = agent.launch(home, model.url, base);
  const updates: SessionNotification[] = [];
  // The runtime as the app has it, its user file saying `toolExposure` is the mode of the session being opened.
  let mode: Mode = 'all';
  const withMode: AcpRuntimeLike = {
    whenReady: () => runtime.whenReady(),
    mcpServerPlan: () => ({ ...runtime.mcpServerPlan(), exposure: { options: { toolExposure: mode }, servers: {} } }),
  };
  const engine = new AcpEngine({
    ...launch,
    cwd,
    runtime: withMode,
    mcp: { cliPath: cli, node: nodeCommand() },
    logger: memoryLogger().logger,
    onPermission: allowOnce,
    onSessionUpdate: (n) => updates.push(n),
  });
  const byName = agent.toolName(DEFAULT_ENTRY_NAME, TARGET);
  const search = agent.toolName(DEFAULT_ENTRY_NAME, 'search_tools');
  let tree: number[] = [];
  try {
    await engine.start();
    await body({
      updates,
      open: async (m) => {
        mode = m;
        return (await engine.newSession(cwd)).sessionId;
      },
      send: async (sessionId, marker) => {
        const from = model.requests.length;
        const res = await engine.conn.agent.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: promptText(marker) }],
        });
        if (res.stopReason !== 'end_turn') throw new Error(`${agent.name} stopped with ${res.stopReason}`);
        return model.requests.slice(from).filter((r) => r.prompt.includes(marker) && r.tools.length > 0);
      },
      route: (marker) => {
        const call = calls.find((c) => c.marker === marker && c.tool !== search);
        return call && (call.tool === byName ? 'by name' : 'call_tool');
      },
    });
  } finally {
    // The agent's whole tree (its helpers, our proxies) is known only while it runs.
    if (engine.pid !== undefined) tree = [engine.pid, ...descendantsOf(engine.pid)];
    await engine.stop({ deadlineMs: 5000 });
    await model.close();
    await trap.close();
  }
  const left = await waitAllNotRunning(tree, 8000);
  if (left.length) throw new Error(`${agent.name} left processes running: ${left.join(', ')}`);
  return { refused: trap.hosts };
}

describe(`real ACP agents with fake model APIs, through the stdio aggregate of ${CATALOG_IDS.length} servers`, () => {
  for (const agent of REAL_AGENTS) {
    it.concurrent(
      `${agent.name} completes a prompt that needs a deferred tool, found with search_tools`,
      async ({ expect }) => {
        const byName = agent.toolName(DEFAULT_ENTRY_NAME, TARGET);
        const search = agent.toolName(DEFAULT_ENTRY_NAME, 'search_tools');
        const { refused } = await inSlot(() =>
          withAgent(agent, async ({ open, send, route, updates }) => {
            // `all`: every tool is listed; the model calls the tool by name where the agent passed it on.
            const all = await send(await open('all'), 'marker-a1');
            expect(all[0].tools).not.toContain(search);
            if (agent.defersLongToolLists) expect(all[0].tools).not.toContain(byName);
            else {
              expect(all[0].tools).toContain(byName);
              expect(route('marker-a1')).toBe('by name');
              expect(fromServer(all[1]?.toolResults[0], 'marker-a1'), JSON.stringify(all[1]?.toolResults)).toBe(true);
            }

            // `search`: only the meta-tools; the tool is found, then called, and its result reaches the model.
            const session = await open('search');
            const found = await send(session, 'marker-b2');
            expect(found[0].tools).toContain(search);
            expect(found[0].tools).toContain(agent.toolName(DEFAULT_ENTRY_NAME, 'call_tool'));
            expect(found[0].tools).not.toContain(byName);
            expect(found[1]?.toolResults, 'the search result').toHaveLength(1);
            expect(plain(found[1].toolResults[0])).toContain(`"name":"${TARGET}"`);
            expect(found[2]?.toolResults, 'the search and call results').toHaveLength(2);
            expect(fromServer(found[2].toolResults[1], 'marker-b2'), found[2].toolResults[1]).toBe(true);

            // The next prompt of that session: the found tool is called again, by name if the agent re-listed.
            const next = await send(session, 'marker-c3');
            expect(
              next.some((r) => r.toolResults.some((t) => fromServer(t, 'marker-c3'))),
              JSON.stringify(next.map((r) => r.toolResults)),
            ).toBe(true);
            expect(agentText(updates)).toContain(ANSWER);

            const figure: Figure = {
              agent: agent.name,
              all: toolTokens(all[0]),
              allOurs: ourTokens(agent, all[0]),
              search: toolTokens(found[0]),
              searchOurs: ourTokens(agent, found[0]),
              found: route('marker-b2')!,
              next: route('marker-c3')!,
            };
            if (!agent.defersLongToolLists) expect(figure.search).toBeLessThan(figure.all / 4);
            figures.push(figure);
          }),
        );
        expect(refused.filter((h) => !agent.refusedHosts.includes(h))).toEqual([]);
      },
      240_000,
    );
  }
});
