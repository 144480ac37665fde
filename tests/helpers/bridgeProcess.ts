// Runs the built bridge (`qiming-mcp-stdio-proxy proxy`, dist/proxy/qiming-mcp-stdio-proxy.cjs)
// as a real process: reads its ready line, talks to it over HTTP (fetch, SDK clients),
// remembers every server pid it ever reported (from /status and by following /events), and
// in `cleanupBridges()` (call it from afterEach) stops everything and checks that the bridge
// and every server are gone and that stdout never carried anything but the one ready line.
// The generic pieces live in bridgeKit.ts and are re-exported here.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { RuntimeStatus, ServerStatus } from '../../src/shared/status.js';
import { builtCli, killHard, releaseCliSnapshot, releaseTracked, ROOT, waitFor, waitNotRunning } from './bridgeKit.js';
import { exitOf, exitWithin, type ExitInfo } from './childExit.js';
import { scaled } from './loadScale.js';
export type { ExitInfo } from './childExit.js';

export * from './bridgeKit.js';

/** The ready line's shape. */
export interface ReadyLine {
  event: 'ready';
  port: number;
  url: string;
  token: string;
  pid: number;
  servers: { id: string; state: string; tools: number; error?: string; stderrTail?: string[] }[];
}

export interface BridgeSpawnOptions {
  /** `{mcpServers: ...}` (sent inline as JSON) or a config file path; undefined: no `--config` (the headless default). */
  config: unknown;
  /** Extra CLI arguments after `proxy --port <port> --config <json>`. */
  args?: string[];
  port?: number;
  /** Token passed as MCP_BRIDGE_TOKEN (default: a fresh random one); null: none. */
  token?: string | null;
  /** Extra environment (undefined values remove a variable). */
  env?: Record<string, string | undefined>;
  /** Opens an IPC channel (stdio fd 3), as Electron's main would. */
  ipc?: boolean;
  /** `proxy` mode (default), or stdio aggregation served over HTTP (`--transport http`). */
  mode?: 'proxy' | 'aggregate-http';
  /** The CLI to run (default: the snapshot of dist/proxy, see builtCli()). */
  cli?: string;
  /** stdin of the bridge: a pipe we hold (default) or /dev/null. */
  stdin?: 'pipe' | 'ignore';
}

const bridges: BridgeProcess[] = [];
const clients: Client[] = [];

/** One running bridge process. */
export class BridgeProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<ExitInfo>;
  readonly token: string | undefined;
  /** Every server pid seen in /status, /events or the ready line, plus pids a test adds. */
  readonly pids = new Set<number>();
  readonly ipcMessages: unknown[] = [];
  /** Every status /events delivered, oldest first (followed from the port being known). */
  readonly history: RuntimeStatus[] = [];
  stdout = '';
  stderr = '';
  exit?: ExitInfo;
  ready?: ReadyLine;
  private listening?: { port: number; url: string };
  private events?: http.ClientRequest;

  constructor(opts: BridgeSpawnOptions) {
    const cli = builtCli();
    this.token = opts.token === null ? undefined : (opts.token ?? randomBytes(24).toString('base64url'));
    const env: NodeJS.ProcessEnv = { ...process.env };
    // Nothing of the test runner's own setup may leak into the bridge under test.
    for (const k of ['MCP_BRIDGE_TOKEN', 'MCP_PROXY_LOG_FILE', 'MCP_PROXY_LOG_LEVEL']) delete env[k];
    if (this.token !== undefined) env.MCP_BRIDGE_TOKEN = this.token;
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const config =
      opts.config === undefined
        ? []
        : ['--config', typeof opts.config === 'string' ? opts.config : JSON.stringify(opts.config)];
    const head = opts.mode === 'aggregate-http' ? ['--transport', 'http'] : ['proxy'];
    const args = [opts.cli ?? cli, ...head, '--port', String(opts.port ?? 0), ...config, ...(opts.args ?? [])];
    const stdio: ('pipe' | 'ignore' | 'ipc')[] = [opts.stdin ?? 'pipe', 'pipe', 'pipe'];
    if (opts.ipc) stdio.push('ipc');
    this.child = spawn(process.execPath, args, { cwd: ROOT, env, stdio });
    bridges.push(this);
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => this.onStdout(d));
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.child.stdin?.on('error', () => {});
    this.child.on('message', (m) => this.ipcMessages.push(m));
    this.exited = exitOf(this.child, (exit) => (this.exit = exit));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get port(): number {
    const p = this.ready?.port ?? this.listening?.port;
    if (p === undefined) throw new Error('the bridge has not reported its port yet');
    return p;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The token in use: the one we passed, else the ready line's. */
  get bearer(): string {
    const t = this.token ?? this.ready?.token;
    if (!t) throw new Error('token unknown before the ready line');
    return t;
  }

  get auth(): Record<string, string> {
    return { Authorization: `Bearer ${this.bearer}` };
  }

  stdoutLines(): string[] {
    return this.stdout.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
  }

  private onStdout(d: string): void {
    this.stdout += d;
    if (!this.ready && this.stdout.includes('\n')) {
      const line = this.stdout.slice(0, this.stdout.indexOf('\n'));
      try {
        this.ready = JSON.parse(line) as ReadyLine;
      } catch {
        // Left undefined: waitReady reports the bad line.
      }
    }
  }

  /** Waits for the ready line; throws (with stderr) if the bridge exits or times out first. */
  async waitReady(timeoutMs = 30_000): Promise<ReadyLine> {
    await waitFor(() => this.ready || this.exit || this.stdout.includes('\n'), timeoutMs, 'the ready line').catch(
      (e) => {
        throw new Error(`${(e as Error).message}; stderr:\n${this.stderr.slice(-3000)}`);
      },
    );
    if (!this.ready)
      throw new Error(
        `no ready line; stdout=${JSON.stringify(this.stdout)} exit=${JSON.stringify(this.exit)}\nstderr:\n${this.stderr.slice(-3000)}`,
      );
    this.watchEvents();
    await this.status().catch(() => undefined);
    return this.ready;
  }

  /** Waits for the HTTP listener (from the bridge's log on stderr), before any ready line. */
  async waitListening(timeoutMs = 15_000): Promise<{ port: number; url: string }> {
    const m = await waitFor(
      () => /\[http\] listening on (http:\/\/[^\s]+:(\d+))/.exec(this.stderr) || this.exit,
      scaled(timeoutMs),
      'the listening log line',
    );
    if (!Array.isArray(m))
      throw new Error(`bridge exited ${JSON.stringify(this.exit)} before listening:\n${this.stderr}`);
    this.listening = { url: m[1], port: Number(m[2]) };
    this.watchEvents();
    return this.listening;
  }

  /** Waits for the process to exit; throws after `timeoutMs`. */
  waitExit(timeoutMs: number): Promise<ExitInfo> {
    return exitWithin(
      this.exited,
      timeoutMs,
      () => `bridge ${this.pid} did not exit within ${timeoutMs} ms; stderr:\n${this.stderr.slice(-3000)}`,
    );
  }

  /** fetch() against the bridge with the bearer token (unless headers override it). */
  fetch(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(this.url + path, {
      ...init,
      headers: { ...this.auth, ...(init.headers as Record<string, string> | undefined) },
    });
  }

  /**
   * Follows /events for the bridge's whole life, remembering every server pid any status
   * names, so a server started and replaced between two of the test's own looks is
   * checked at the end too.
   */
  private watchEvents(): void {
    if (this.events || (this.token === undefined && !this.ready)) return;
    let buffer = '';
    this.events = http.get(
      {
        host: '127.0.0.1',
        port: this.port,
        path: '/events',
        headers: { ...this.auth, Accept: 'text/event-stream' },
        agent: false,
      },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          buffer += d;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = event
              .split('\n')
              .filter((l) => l.startsWith('data: '))
              .map((l) => l.slice(6))
              .join('\n');
            if (!data) continue;
            try {
              const status = JSON.parse(data) as RuntimeStatus;
              this.history.push(status);
              this.remember(...status.servers.map((x) => x.pid));
            } catch {
              // not a status event
            }
          }
        });
        res.on('error', () => {});
      },
    );
    this.events.on('error', () => {});
  }

  /** The states server `id` went through per /events, repeats collapsed. */
  statesOf(id: string): string[] {
    const out: string[] = [];
    for (const st of this.history) {
      const state = st.servers.find((x) => x.id === id)?.state;
      if (state !== undefined && out[out.length - 1] !== state) out.push(state);
    }
    return out;
  }

  /** Stops following /events. */
  unwatch(): void {
    this.events?.destroy();
  }

  remember(...pids: (number | undefined)[]): void {
    for (const p of pids) if (p !== undefined) this.pids.add(p);
  }

  /** GET /status; remembers every server pid it names. */
  async status(): Promise<RuntimeStatus> {
    const res = await this.fetch('/status');
    if (res.status !== 200) throw new Error(`/status answered ${res.status}: ${await res.text()}`);
    const s = (await res.json()) as RuntimeStatus;
    this.remember(...s.servers.map((x) => x.pid));
    return s;
  }

  async server(id: string): Promise<ServerStatus> {
    const s = (await this.status()).servers.find((x) => x.id === id);
    if (!s) throw new Error(`no server ${id} in /status`);
    return s;
  }

  /** Polls /status until `pred` holds for server `id`. */
  async waitServer(
    id: string,
    pred: (s: ServerStatus) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<ServerStatus> {
    let last: ServerStatus | undefined;
    try {
      return await waitFor(
        async () => {
          last = await this.server(id);
          return pred(last) && last;
        },
        scaled(timeoutMs),
        `${id}: ${what}`,
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}; last status: ${JSON.stringify(last)}`);
    }
  }

  /** An SDK client on `path` (streamable HTTP, or legacy SSE with `sse: true`). */
  async client(
    path: string,
    opts: { capabilities?: ClientCapabilities; sse?: boolean; name?: string; headers?: Record<string, string> } = {},
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport | SSEClientTransport }> {
    const headers = { ...this.auth, ...opts.headers };
    const url = new URL(this.url + path);
    const transport = opts.sse
      ? new SSEClientTransport(url, {
          requestInit: { headers },
          eventSourceInit: {
            fetch: (input, init) =>
              fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
          },
        })
      : new StreamableHTTPClientTransport(url, {
          requestInit: { headers },
          reconnectionOptions: {
            maxRetries: 0,
            initialReconnectionDelay: 1000,
            maxReconnectionDelay: 1000,
            reconnectionDelayGrowFactor: 1,
          },
        });
    const client = new Client(
      { name: opts.name ?? 'bridge-test', version: '1.0.0' },
      { capabilities: opts.capabilities ?? {} },
    );
    clients.push(client);
    await client.connect(transport);
    return { client, transport };
  }
}

/** Spawns a bridge; `cleanupBridges()` stops it and checks its processes are gone. */
export function spawnBridge(opts: BridgeSpawnOptions): BridgeProcess {
  return new BridgeProcess(opts);
}

/** Spawns a bridge and waits for its ready line. */
export async function startBridge(opts: BridgeSpawnOptions, timeoutMs = 30_000): Promise<BridgeProcess> {
  const b = spawnBridge(opts);
  await b.waitReady(timeoutMs);
  return b;
}

async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

/**
 * Closes every client, stops every bridge (SIGTERM, then SIGKILL after 10 s), then checks
 * that each bridge exited, printed nothing on stdout but its one ready line, and that every
 * pid it or the test recorded is gone. Survivors are SIGKILLed (group too) and reported.
 */
export async function cleanupBridges(): Promise<void> {
  const problems: string[] = [];
  await Promise.all(
    clients.splice(0).map((c) =>
      within(
        c.close().catch(() => undefined),
        3000,
      ),
    ),
  );
  for (const b of bridges.splice(0)) {
    if (!b.exit) {
      b.child.kill('SIGTERM');
      if (!(await within(b.exited, 10_000))) {
        problems.push(`bridge ${b.pid} did not exit within 10 s of SIGTERM`);
        b.child.kill('SIGKILL');
        await within(b.exited, 5000);
      }
    }
    b.unwatch();
    const lines = b.stdoutLines();
    const onlyReady =
      lines.length === 0 || (lines.length === 1 && b.ready !== undefined && b.stdout === `${lines[0]}\n`);
    if (!onlyReady)
      problems.push(
        `bridge ${b.pid} wrote more than its ready line on stdout: ${JSON.stringify(b.stdout.slice(0, 500))}`,
      );
    for (const pid of [b.pid, ...b.pids]) {
      if (await waitNotRunning(pid, 6000)) continue;
      problems.push(`pid ${pid} (of bridge ${b.pid}) is still alive`);
      killHard(pid);
    }
  }
  problems.push(...(await releaseTracked()));
  releaseCliSnapshot();
  if (problems.length) throw new Error(problems.join('\n'));
}
