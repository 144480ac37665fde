// The ACP path end to end: McpRuntime (real bridge, real servers) + AcpEngine driving a real
// ACP agent fixture, which spawns the stdio proxy it is handed (the app's grandchild) and
// lists its tools; the proxy's log lines reach MCP_PROXY_LOG_FILE and, through LogTail, an
// electron-log file; killing the agent leaves no proxy behind. The entry is chosen by the agent
// (the fixture passes for Copilot, which drops stdio entries), newSession resolves once the
// agent's connection reached the bridge, and an agent that never connects is named in a warning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { DEFAULT_ENTRY_NAME } from '../../src/main/acp/acp.js';
import { join } from 'node:path';
import log from 'electron-log/node';
import { McpRuntime } from '../../src/main/runtime/mcpRuntime.js';
import { AcpEngine } from '../../src/main/acp/acpEngine.js';
import { nodeCommand } from '../../src/main/runtime/cliPath.js';
import { proxyLogFilePath } from '../../src/main/logs/logPaths.js';
import { LogTail } from '../../src/main/logs/logTail.js';
import { createElectronLogSink } from '../../src/main/logs/logForwarder.js';
import {
  ensureCli,
  everythingEntry,
  FIXTURES,
  notRunning,
  killQuietly,
  memoryEntry,
  memoryLogger,
  removeTempDirs,
  tempDir,
  waitFor,
  waitAllNotRunning,
  writeConfig,
} from './mainHarness.js';

const AGENT = join(FIXTURES, 'acpAgent.mjs');
interface EntryReport {
  type: string;
  pid: number | null;
  tools: string[];
  firstListMs: number;
}

let cli: string;
let dir: string;
let runtime: McpRuntime;
let logFile: string;
let mainLog: string;
let tail: LogTail;
const pids = new Set<number>();
let engineLog: ReturnType<typeof memoryLogger>;

beforeAll(async () => {
  cli = ensureCli();
  dir = tempDir();
  const configFile = join(dir, 'mcp.json');
  writeConfig(configFile, {
    mcpServers: {
      memory: memoryEntry(dir),
      everything: everythingEntry(),
      // Spawned per session by the agent's proxy, not in the bridge.
      scratch: { ...memoryEntry(join(dir, 'scratch')), persistent: false },
    },
  });
  logFile = proxyLogFilePath(join(dir, 'logs'));
  mainLog = join(dir, 'logs', 'main.log');
  const elog = log.create({ logId: 'acp-e2e' });
  elog.transports.file.resolvePathFn = () => mainLog;
  elog.transports.console.level = false;
  tail = new LogTail({ path: logFile, onEntry: createElectronLogSink(elog), startAt: 'start', pollMs: 200 });
  await tail.start();
  runtime = new McpRuntime({ configFile, cliPath: cli, logger: memoryLogger().logger, watchConfig: false });
  runtime.on('status', (s) => {
    for (const p of [s.bridge.pid, ...s.servers.map((x) => x.pid)]) if (p) pids.add(p);
  });
  await runtime.start();
});

afterAll(async () => {
  await runtime?.stop({ deadlineMs: 3000 });
  await tail?.stop();
  for (const p of pids) if (!notRunning(p)) killQuietly(p);
  const left = await waitAllNotRunning([...pids], 3000);
  removeTempDirs();
  expect(left).toEqual([]);
});

function engine(
  args: string[] = [],
  mcp: { transport?: 'stdio' | 'http'; layout?: 'aggregate' | 'perServer' } = {},
  connectTimeoutMs?: number,
) {
  engineLog = memoryLogger();
  const e = new AcpEngine({
    command: process.execPath,
    args: [AGENT, ...args],
    runtime,
    mcp: { cliPath: cli, node: nodeCommand(), logFile, ...mcp },
    logger: engineLog.logger,
    ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
  });
  return e;
}

async function openSession(e: AcpEngine) {
  const init = await e.start();
  pids.add(e.pid!);
  const res = await e.newSession(dir);
  const mcp = (res._meta as { mcp: Record<string, EntryReport> }).mcp;
  for (const r of Object.values(mcp)) if (r.pid) pids.add(r.pid);
  return { res, mcp, init, entries: (res._meta as { entries: Record<string, unknown>[] }).entries };
}

describe('ACP engine with the runtime', () => {
  it('gives the agent one stdio proxy whose first tools/list is complete, logging into electron-log', async () => {
    const e = engine();
    const { mcp, entries, init } = await openSession(e);
    // The agent received one stdio entry of the ACP v1 shape.
    expect(entries).toHaveLength(1);
    expect(entries[0]).not.toHaveProperty('type');
    expect(entries[0].command).toBe(process.execPath);
    expect(JSON.stringify(entries[0].args)).not.toContain((await runtime.whenReady()).token);

    const bridgeTools = runtime.status().servers.filter((s) => s.id !== 'scratch');
    const expected = bridgeTools.flatMap((s) => s.tools.map((t) => `${s.id}__${t.name}`));
    expect(expected.length).toBeGreaterThan(10);
    const report = mcp[DEFAULT_ENTRY_NAME];
    // Every bridge tool is there on the FIRST list, plus the per-session server's own tools.
    for (const name of expected) expect(report.tools).toContain(name);
    expect(report.tools.filter((t) => t.startsWith('scratch__')).length).toBeGreaterThan(0);
    expect(report.tools).toHaveLength(expected.length + report.tools.filter((t) => t.startsWith('scratch__')).length);

    // The engine saw the agent's connection reach the bridge.
    expect(engineLog.lines.join('\n')).toContain(`its MCP entry "${DEFAULT_ENTRY_NAME}" (stdio) reached the bridge`);
    // An agent known to prompt before its MCP servers are connected is started so that it waits.
    expect(init._meta).toEqual({ qwenBlocking: '1' });

    // The grandchild proxy wrote its log file; LogTail carried its lines into electron-log.
    const proxyLine = await waitFor(
      () => {
        const text = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
        return /\] \[info\] \[[^\]]+\] (.+)/.exec(text)?.[1];
      },
      10_000,
      'a line in MCP_PROXY_LOG_FILE',
    );
    await waitFor(
      () => existsSync(mainLog) && readFileSync(mainLog, 'utf8').includes(proxyLine),
      10_000,
      'the line in the electron-log file',
    );

    // SIGKILL of the agent alone (not its group): the proxy notices (stdin EOF / watchdog) and exits.
    const proxyPid = report.pid!;
    expect(notRunning(proxyPid)).toBe(false);
    process.kill(e.pid!, 'SIGKILL');
    await e.exited();
    expect(await waitAllNotRunning([proxyPid], 8000)).toEqual([]);
    await e.stop();
  });

  it('stop() ends the agent and the proxies it spawned', async () => {
    const e = engine([], { layout: 'perServer' });
    const { mcp } = await openSession(e);
    expect(Object.keys(mcp).sort()).toEqual(['everything', 'memory', 'scratch']);
    // One server per entry: raw tool names.
    expect(mcp.memory.tools).toContain('create_entities');
    const all = [e.pid!, ...Object.values(mcp).map((r) => r.pid!)];
    await e.stop({ deadlineMs: 3000 });
    expect(all.filter((p) => !notRunning(p))).toEqual([]);
    await e.stop(); // idempotent
  });

  it('gives an agent that drops stdio entries (Copilot) one http entry to /mcp, named as the stdio aggregate names tools', async () => {
    const e = engine(['--http', '--name', 'Copilot', '--drop-stdio']);
    const { mcp, entries } = await openSession(e);
    expect(entries).toEqual([
      {
        type: 'http',
        name: DEFAULT_ENTRY_NAME,
        url: `${(await runtime.whenReady()).url}/mcp`,
        headers: [
          { name: 'Authorization', value: `Bearer ${(await runtime.whenReady()).token}` },
          { name: 'x-qiming-agent-session', value: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) },
          // The session's caller key: an allow in its own permission prompt answers its calls only.
          { name: 'x-qiming-caller-key', value: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) },
          // What the bridge's economy view lists the session with.
          { name: 'x-qiming-agent-name', value: 'Copilot' },
          { name: 'x-qiming-agent-entry', value: 'http' },
        ],
      },
    ]);
    // The bridge's aggregate: every bridge server's tools, namespaced; the per-session server is left out and said so.
    expect(mcp[DEFAULT_ENTRY_NAME].tools).toContain('memory__create_entities');
    expect(mcp[DEFAULT_ENTRY_NAME].tools).toContain('everything__echo');
    expect(mcp[DEFAULT_ENTRY_NAME].tools.some((t) => t.startsWith('scratch__'))).toBe(false);
    const text = engineLog.lines.join('\n');
    expect(text).toContain('"Copilot" takes no stdio entry: its sessions run without the per-session servers scratch');
    expect(text).toContain(`its MCP entry "${DEFAULT_ENTRY_NAME}" (http) reached the bridge`);
    await e.stop({ deadlineMs: 3000 });
    expect(notRunning(e.pid!)).toBe(true);
  });

  it('resolves newSession only once an agent that connects in the background reached the bridge', async () => {
    const report = join(dir, 'late.jsonl');
    const e = engine(['--late', '1500', '--late-report', report]);
    const { mcp } = await openSession(e);
    expect(mcp).toEqual({}); // the agent answered session/new before it connected
    // By then the agent's proxy is up and linked to the bridge: the wait covered its start.
    expect(engineLog.lines.join('\n')).toContain('reached the bridge');
    const listed = await waitFor(
      () => (existsSync(report) ? (JSON.parse(readFileSync(report, 'utf8').split('\n')[0]) as EntryReport) : undefined),
      20_000,
      "the late agent's list",
    );
    if (listed.pid) pids.add(listed.pid);
    expect(listed.tools).toContain('memory__create_entities');
    await e.stop({ deadlineMs: 3000 });
  });

  it('names an agent whose MCP entry never reached the bridge, and opens its session anyway', async () => {
    // A forced stdio entry to an agent that drops stdio entries: nothing ever connects.
    const e = engine(['--http', '--name', 'Copilot', '--drop-stdio'], { transport: 'stdio' }, 1500);
    const { res, mcp } = await openSession(e);
    expect(res.sessionId).toBe('session-1');
    expect(mcp).toEqual({});
    expect(engineLog.lines.join('\n')).toMatch(
      new RegExp(
        `ACP agent "Copilot" session session-1: its MCP entry "${DEFAULT_ENTRY_NAME}" \\(stdio\\) did not reach the bridge within 1500 ms`,
      ),
    );
    await e.stop({ deadlineMs: 3000 });
  });
});
