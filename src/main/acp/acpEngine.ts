// src/main/acp/: the ACP agent engine and the MCP entries it is given.
/**
 * AcpEngine: one ACP agent process (Claude Agent ACP, Codex ACP, Gemini CLI, OpenCode, Copilot,
 * Qwen Code, ...) driven with `@agentclientprotocol/sdk` 2.x (`client().connect(ndJsonStream(...))`).
 *
 * - Sessions are opened only after `runtime.whenReady()`, with the entries of acp.ts chosen for
 *   the agent that answered `initialize` (agentProfiles.ts), so the agent's first `tools/list`
 *   finds every tool. `newSession` then resolves once the agent's MCP connection reached the
 *   bridge (the session's key, `connectTimeoutMs` at most; a warning names an agent that never
 *   connected), and agents known to prompt before their MCP servers are connected are started
 *   so that they wait (`AGENT_START_ENV`).
 * - The agent runs in its own process group, and so do the stdio proxies it spawns (unless it
 *   detaches them). Agents seen in the wild do not exit on stdin EOF, so stop() ends the group:
 *   stdin EOF and SIGTERM at once, SIGKILL past the deadline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Readable, Writable } from 'node:stream';
import {
  client,
  ndJsonStream,
  PROTOCOL_VERSION,
  type AgentCapabilities,
  type ClientConnection,
  type InitializeRequest,
  type InitializeResponse,
  type NewSessionRequest,
  type NewSessionResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { isGroupRunning, killTree, killTreeSync, type SecretStore } from '../../proxy/index.js';
import { resolveSessionSecrets } from '../config/sessionSecrets.js';
import { acpMcpServers, type AcpMcpServersOptions, DEFAULT_ENTRY_NAME, entryPlan, perServerEntries } from './acp.js';
import { AGENT_START_ENV } from './agentProfiles.js';
import { BridgeClient } from '../runtime/bridgeClient.js';
import type { BridgeInfo } from '../runtime/mcpRuntime.js';
import type { AggregateExposure } from '../config/userConfig.js';
import { errorMessage, silentLogger, type RuntimeLogger } from '../logs/runtimeLogger.js';
import {
  answerPermission,
  type AnnouncedCall,
  type ApprovalRuntimeLike,
  type SessionEntryRef,
} from './permissionPolicy.js';

/** The part of McpRuntime an engine needs. */
export interface AcpRuntimeLike extends ApprovalRuntimeLike {
  whenReady(): Promise<BridgeInfo>;
  mcpServerPlan(): { bridgeIds: string[]; sessionEntries: Record<string, unknown>; exposure?: AggregateExposure };
}

export interface AcpEngineOptions {
  /** The agent executable and its arguments (e.g. `node` and `claude-agent-acp`'s `dist/index.js`). */
  command: string;
  args?: string[];
  cwd?: string;
  /** The agent's environment. Default: this process's. */
  env?: NodeJS.ProcessEnv;
  runtime: AcpRuntimeLike;
  /**
   * How the session entries are built; the bridge, the server plan and the agent come from
   * `runtime` and `initialize`. `transport` (default `auto`) is where an app or its user
   * overrides the entry chosen for the agent.
   */
  mcp: Omit<AcpMcpServersOptions, 'bridge' | 'bridgeIds' | 'sessionEntries' | 'agentInfo' | 'selected' | 'sessionKey'>;
  /**
   * How long `newSession` waits, after the agent answered `session/new`, for its MCP connection
   * to reach the bridge (default 20 000 ms; 0: no wait). Past it the session is used anyway and a
   * warning says the agent never connected (an entry it dropped).
   */
  connectTimeoutMs?: number;
  clientInfo?: { name: string; version: string };
  logger?: RuntimeLogger;
  onSessionUpdate?: (n: SessionNotification) => void;
  /**
   * Which of the runtime's servers this agent gets (the panel's per-agent selection,
   * agentSelection.ts: `(plan) => selectServers(plan, store.serversFor(name))`). Default: all.
   */
  selectServers?: (plan: { bridgeIds: string[]; sessionEntries: Record<string, unknown> }) => {
    bridgeIds: string[];
    sessionEntries: Record<string, unknown>;
  };
  /**
   * The app's secret store (`appSecretStore(key)`): `${secret:NAME}`s in `persistent: false`
   * entries are read from it for each session (sessionSecrets.ts). Default: none, and such an entry fails in the session.
   */
  secrets?: SecretStore;
  /** Answers permission requests. Default: cancelled (the app must decide, not the runtime). */
  onPermission?: (req: RequestPermissionRequest) => Promise<RequestPermissionResponse>;
}

/** How many sessions' caller keys an engine keeps (the oldest forgotten first: its prompts grant nothing). */
const MAX_SESSION_KEYS = 1000;
/** Entry names kept for the permission pass-through (the newest). */
const MAX_ENTRY_NAMES = 64;
/** Default of `connectTimeoutMs`: an agent's proxy starting on a loaded machine takes seconds. */
const CONNECT_TIMEOUT_MS = 20_000;
/** Tool calls whose announcement is kept for the permission prompt that may follow (the newest). */
const MAX_ANNOUNCED = 256;
/** How long stop() waits for the group after the final SIGKILL. */
const AFTER_KILL_MS = 2000;
const POLL_MS = 50;

/** See the file comment. */
export class AcpEngine {
  private child: ChildProcess | undefined;
  private connection: ClientConnection | undefined;
  private init: InitializeResponse | undefined;
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private exitedPromise: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;
  private readonly log: RuntimeLogger;
  /** Each session's caller key, by ACP session id (newSession). */
  private readonly callerKeys = new Map<string, string>();
  /** The agent's `tool_call` updates by session and call id, for its permission prompts (permissionPolicy.ts). */
  private readonly announced = new Map<string, AnnouncedCall>();

  constructor(private readonly opts: AcpEngineOptions) {
    this.log = opts.logger ?? silentLogger;
    this.entryServers.set(opts.mcp.name ?? DEFAULT_ENTRY_NAME, undefined);
  }

  /** The agent's pid (its process group id on POSIX). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** What the agent answered to `initialize`. */
  get agentCapabilities(): AgentCapabilities | undefined {
    return this.init?.agentCapabilities;
  }

  /** The live ACP connection (`connection.agent.request(...)` for prompts and the rest). */
  get conn(): ClientConnection {
    if (!this.connection) throw new Error('AcpEngine.start() has not run');
    return this.connection;
  }

  /** Spawns the agent and runs `initialize`. */
  async start(): Promise<InitializeResponse> {
    if (this.child) throw new Error('AcpEngine.start() called twice');
    const child = spawn(this.opts.command, this.opts.args ?? [], {
      cwd: this.opts.cwd,
      // An agent known to prompt before its MCP servers are connected is made to wait for them.
      env: { ...AGENT_START_ENV, ...(this.opts.env ?? process.env) },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
      shell: false,
    });
    this.child = child;
    this.exitedPromise = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        this.log.info(`ACP agent (pid ${child.pid}) exited (${signal ?? `code ${code}`})`);
        resolve();
      });
      child.once('error', (err) => {
        this.log.error(`ACP agent failed to start: ${errorMessage(err)}`);
        this.exitInfo ??= { code: null, signal: null };
        resolve();
      });
    });
    child.stdin!.on('error', () => {}); // EPIPE when the agent dies; the exit tells the story
    createInterface({ input: child.stderr!, crlfDelay: Infinity }).on('line', (l) => l.trim() && this.log.info(l));

    const app = client({ name: this.opts.clientInfo?.name ?? 'qiming-mcp-runtime' })
      .onNotification('session/update', ({ params }) => {
        this.noteCall(params);
        this.opts.onSessionUpdate?.(params);
      })
      // A tool of the runtime's aggregate: the approval policy answers allow and deny itself (permissionPolicy.ts).
      .onRequest('session/request_permission', async ({ params }) =>
        answerPermission(
          params,
          this.opts.runtime,
          this.entryRefs(),
          this.callerKeys.get(params.sessionId),
          (req) =>
            this.opts.onPermission
              ? this.opts.onPermission(req)
              : Promise.resolve({ outcome: { outcome: 'cancelled' } }),
          (line) => this.log.info(line),
          this.announced.get(callKey(params.sessionId, params.toolCall.toolCallId)),
        ),
      );
    const stream = ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
    );
    this.connection = app.connect(stream);
    const failed: Promise<never> = this.exitedPromise.then(() => {
      throw new Error(
        `the ACP agent exited during initialize (${this.exitInfo?.signal ?? `code ${this.exitInfo?.code}`})`,
      );
    });
    const initRequest: InitializeRequest = {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: this.opts.clientInfo ?? { name: 'qiming-mcp-runtime', version: '0' },
    };
    const init = await Promise.race([this.connection.agent.request('initialize', initRequest), failed]);
    this.init = init;
    return init;
  }

  /** Keeps how the agent announced a tool call (its title and input), for a permission prompt of it. */
  private noteCall(n: SessionNotification): void {
    const u = n.update;
    if (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update') return;
    const key = callKey(n.sessionId, u.toolCallId);
    const before = this.announced.get(key);
    this.announced.delete(key);
    this.announced.set(key, { title: u.title ?? before?.title, rawInput: u.rawInput ?? before?.rawInput });
    for (const k of this.announced.keys()) {
      if (this.announced.size <= MAX_ANNOUNCED) break;
      this.announced.delete(k);
    }
  }

  /**
   * The `mcpServers` a new session gets now (waits for the bridge). `callerKey`: the session's
   * caller key (newSession makes one); without it, an allow in the session's own permission
   * prompt is not granted to the bridge, which then asks for the call itself.
   */
  async sessionMcpServers(callerKey?: string): Promise<NewSessionRequest['mcpServers']> {
    return (await this.entries(undefined, callerKey)).mcpServers;
  }

  /**
   * The session entries the runtime gave this agent (its permission prompts name them), the
   * newest last: by name, the server of an entry of one server (undefined: an aggregate).
   */
  private readonly entryServers = new Map<string, string | undefined>();

  private entryRefs(): SessionEntryRef[] {
    return [...this.entryServers].map(([name, serverId]) => (serverId === undefined ? name : { name, serverId }));
  }

  private async entries(sessionKey?: string, callerKey?: string) {
    const bridge = await this.opts.runtime.whenReady();
    const all = this.opts.runtime.mcpServerPlan();
    const plan = this.opts.selectServers ? this.opts.selectServers(all) : all;
    const kept = await resolveSessionSecrets(plan.sessionEntries, this.opts.secrets);
    for (const u of kept.unresolved)
      this.log.warn(`\${secret:${u.name}} of a per-session server not resolved: ${u.why}`);
    const options: AcpMcpServersOptions = {
      ...this.opts.mcp,
      bridge,
      bridgeIds: plan.bridgeIds,
      selected: plan.bridgeIds.length < all.bridgeIds.length,
      sessionEntries: kept.servers,
      exposure: all.exposure,
      agentInfo: this.init?.agentInfo,
      ...(sessionKey === undefined ? {} : { sessionKey }),
      env: { ...this.opts.mcp.env, ...kept.env },
      ...(callerKey === undefined ? {} : { callerKey }),
    };
    const mcpServers = acpMcpServers(this.agentCapabilities, options);
    const entryPlanNow = entryPlan(this.agentCapabilities, options);
    const perServer = new Set(perServerEntries(entryPlanNow, options));
    for (const { name } of mcpServers) {
      this.entryServers.delete(name);
      this.entryServers.set(name, perServer.has(name) ? name : undefined);
    }
    for (const name of this.entryServers.keys()) {
      if (this.entryServers.size <= MAX_ENTRY_NAMES) break;
      this.entryServers.delete(name);
    }
    return { bridge, mcpServers, plan: entryPlanNow };
  }

  /**
   * `session/new` in `cwd` (absolute), once the bridge is ready, with the runtime's MCP entries;
   * resolves once the agent's MCP connection reached the bridge (see the file comment).
   */
  async newSession(
    cwd: string,
    extra: Partial<Omit<NewSessionRequest, 'cwd' | 'mcpServers'>> = {},
  ): Promise<NewSessionResponse> {
    if (!this.init) throw new Error('AcpEngine.start() has not completed');
    const key = randomBytes(12).toString('base64url');
    // The session's own caller key: an allow in its permission prompt answers only its calls (permissionPolicy.ts).
    const callerKey = randomBytes(24).toString('base64url');
    const { bridge, mcpServers, plan } = await this.entries(key, callerKey);
    const agent = this.init.agentInfo?.name ?? this.opts.command;
    const name = this.opts.mcp.name ?? DEFAULT_ENTRY_NAME;
    if (plan.droppedSessionEntries.length > 0)
      this.log.warn(
        `ACP agent "${agent}" takes no stdio entry: its sessions run without the per-session servers ${plan.droppedSessionEntries.join(', ')}`,
      );
    const res = await this.conn.agent.request('session/new', { ...extra, cwd, mcpServers });
    this.callerKeys.set(res.sessionId, callerKey);
    if (this.callerKeys.size > MAX_SESSION_KEYS) this.callerKeys.delete(this.callerKeys.keys().next().value!);
    // Only the entries that reach the bridge carry the key (not one of per-session servers alone).
    const toBridge = mcpServers.filter((e) => JSON.stringify(e).includes(key));
    const waitMs = this.opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
    if (toBridge.length === 0 || waitMs <= 0) return res;
    const how = `${plan.transport}${plan.allTools ? ', every tool listed' : ''}`;
    if (await new BridgeClient({ baseUrl: bridge.url, token: bridge.token }).agentArrived(key, waitMs))
      this.log.info(
        `ACP agent "${agent}" session ${res.sessionId}: its MCP entry "${name}" (${how}) reached the bridge`,
      );
    else
      this.log.warn(
        `ACP agent "${agent}" session ${res.sessionId}: its MCP entry "${name}" (${how}) did not reach the bridge within ${waitMs} ms; the agent dropped it or never started it, and the session has none of the runtime's tools`,
      );
    return res;
  }

  /** Resolves when the agent process has exited. */
  exited(): Promise<void> {
    return this.exitedPromise;
  }

  /**
   * Ends the agent and everything in its process group: stdin EOF and SIGTERM, then SIGKILL
   * at `deadlineMs`. Resolves when no member of the group runs any more (bounded). Idempotent.
   */
  stop(options: { deadlineMs?: number } = {}): Promise<void> {
    this.stopping ??= this.doStop(options.deadlineMs ?? 3000);
    return this.stopping;
  }

  /** Synchronous last resort for `process.on('exit')`. */
  killSync(): void {
    if (this.child?.pid !== undefined) killTreeSync(this.child.pid);
  }

  private async doStop(deadlineMs: number): Promise<void> {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      this.connection?.close();
    } catch {
      // already closed
    }
    this.child!.stdin?.end();
    const gone = () => (this.exitInfo !== undefined || process.platform === 'win32') && !isGroupRunning(pid);
    if (!gone()) killTree(pid, 'SIGTERM');
    if (!(await until(gone, deadlineMs))) {
      this.log.warn(`ACP agent group ${pid} still running after ${deadlineMs} ms; SIGKILL`);
      killTree(pid, 'SIGKILL');
      if (!(await until(gone, AFTER_KILL_MS))) this.log.error(`ACP agent group ${pid} survived SIGKILL`);
    }
  }
}

const callKey = (sessionId: string, toolCallId: string) => `${sessionId}\n${toolCallId}`;

async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}
