/**
 * One run of the bridge child (`qiming-mcp-stdio-proxy proxy`): spawn, its ready message,
 * its stderr lines into the runtime's logger, its exit, and its stop in steps.
 *
 * The bridge runs in its own process group (`detached` on POSIX) so a SIGKILL of the group
 * reaches anything it started in that group. The MCP servers it starts lead groups of their
 * own; the runtime ends those by the pids the bridge reported (see mcpRuntime.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { killTree, killTreeSync, LOG_FILE_ENV, TOKEN_ENV } from '../../proxy/index.js';
import type { NodeCommand } from './cliPath.js';
import { errorMessage, type RuntimeLogger } from '../logs/runtimeLogger.js';

/** The bridge's machine-readable ready message (one JSON line on stdout, also sent over IPC). */
export interface BridgeReadyMessage {
  event: 'ready';
  port: number;
  url: string;
  token: string;
  pid: number;
  servers: { id: string; state: string; tools: number; error?: string }[];
}

/** How a bridge process ended. */
export interface BridgeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last stderr lines, for the status's `lastError`. */
  stderrTail: string[];
}

export interface BridgeProcessOptions {
  /** Absolute path of the bundled proxy CLI. */
  cliPath: string;
  node: NodeCommand;
  /** The user's config file, read by the bridge itself. */
  configFile: string;
  /** 0 picks a free port; a previous port keeps grandchild proxies' URLs valid. */
  port: number;
  /** Bearer token, passed in the environment (never in argv, which other users can read). */
  token: string;
  /**
   * The bridge's own bound on a graceful stop it starts by itself (`--shutdown-timeout`: stdin
   * EOF, a signal, the IPC channel closing); `stop()` passes one derived from its deadline.
   */
  shutdownTimeoutMs: number;
  logger: RuntimeLogger;
  extraArgs?: string[];
  /** Extra environment for the bridge (not its servers: the bridge filters theirs). */
  env?: Record<string, string>;
}

const STDERR_TAIL_LINES = 20;
/** After the last resort SIGKILL, how long to wait for the exit event. */
const EXIT_AFTER_KILL_MS = 2000;

/** One bridge child. Create, then await `ready` (rejects when it exits first) or `exited`. */
export class BridgeProcess {
  readonly child: ChildProcess;
  /** The bridge's pid (also its process group id on POSIX). */
  readonly pid: number | undefined;
  readonly ready: Promise<BridgeReadyMessage>;
  readonly exited: Promise<BridgeExit>;
  private readonly stderrTail: string[] = [];
  private exitInfo: BridgeExit | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly opts: BridgeProcessOptions) {
    const args = [
      opts.cliPath,
      'proxy',
      '--port',
      String(opts.port),
      '--config-file',
      opts.configFile,
      '--shutdown-timeout',
      String(opts.shutdownTimeoutMs),
      ...(opts.extraArgs ?? []),
    ];
    const env: NodeJS.ProcessEnv = { ...process.env, ...opts.node.env, ...opts.env, [TOKEN_ENV]: opts.token };
    // The bridge's stderr already reaches us; writing the shared proxy log too would make the
    // log tail forward every line a second time.
    delete env[LOG_FILE_ENV];
    this.child = spawn(opts.node.command, args, {
      stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
      env,
      detached: process.platform !== 'win32',
      windowsHide: true,
      shell: false,
    });
    this.pid = this.child.pid;
    this.exited = new Promise((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null) => {
        if (this.exitInfo) return;
        this.exitInfo = { code, signal, stderrTail: [...this.stderrTail] };
        resolve(this.exitInfo);
      };
      this.child.once('exit', done);
      this.child.once('error', (err) => {
        this.remember(`spawn failed: ${errorMessage(err)}`);
        opts.logger.error(`cannot start the bridge: ${errorMessage(err)}`);
        done(null, null);
      });
    });
    this.ready = new Promise<BridgeReadyMessage>((resolve, reject) => {
      const take = (m: unknown) => {
        if (isReadyMessage(m)) resolve(m);
      };
      this.child.on('message', take);
      if (this.child.stdout) {
        createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on('line', (line) => {
          const parsed = parseJsonLine(line);
          if (isReadyMessage(parsed)) take(parsed);
          else if (line.trim()) opts.logger.debug(`stdout: ${line}`);
        });
      }
      void this.exited.then((e) => reject(new Error(`the bridge exited before it was ready (${describeExit(e)})`)));
    });
    this.ready.catch(() => {}); // observed through `exited` too; never an unhandled rejection
    if (this.child.stderr) {
      createInterface({ input: this.child.stderr, crlfDelay: Infinity }).on('line', (line) => this.onStderr(line));
    }
    // EPIPE on a dying child's stdin is expected; the exit tells the story.
    this.child.stdin?.on('error', () => {});
    this.child.on('error', () => {});
  }

  /** Whether the process has exited. */
  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  /**
   * Stops the bridge in steps: IPC `{type:'shutdown', deadlineMs}` at once, the bridge's own
   * graceful bound being {@link bridgeGraceMs} of the deadline (stdin EOF at once instead when
   * there is no IPC channel); stdin EOF and SIGTERM at half the deadline, SIGKILL of its process
   * group at three quarters. Resolves once it has exited (or, if even SIGKILL did not end it,
   * a little after the deadline). Idempotent.
   */
  stop(deadlineMs: number): Promise<void> {
    this.stopping ??= this.doStop(deadlineMs);
    return this.stopping;
  }

  /** Synchronous last resort (for `process.on('exit')`): SIGKILL to the bridge's group. */
  killSync(): void {
    if (this.pid !== undefined && !this.exitInfo) killTreeSync(this.pid);
  }

  private async doStop(deadlineMs: number): Promise<void> {
    if (this.exitInfo || this.pid === undefined) return;
    let told = false;
    try {
      // Only the IPC message at first: stdin EOF would start the same stop with the spawn-time bound.
      if (this.child.connected) {
        // (Should the channel close before it is read, the bridge stops on the disconnect.)
        this.child.send({ type: 'shutdown', deadlineMs: bridgeGraceMs(deadlineMs) });
        told = true;
      }
    } catch {
      // The channel closed under us: stdin EOF and the signals below still work.
    }
    if (!told) this.child.stdin?.end();
    const timers: NodeJS.Timeout[] = [];
    const pid = this.pid;
    timers.push(
      setTimeout(
        () => {
          if (!this.exitInfo) this.child.stdin?.end();
          this.signal(pid, 'SIGTERM', false);
        },
        Math.floor(deadlineMs / 2),
      ),
    );
    timers.push(setTimeout(() => this.signal(pid, 'SIGKILL', true), Math.floor((deadlineMs * 3) / 4)));
    try {
      await Promise.race([this.exited, delay(deadlineMs + EXIT_AFTER_KILL_MS)]);
    } finally {
      for (const t of timers) clearTimeout(t);
    }
    if (!this.exitInfo) this.opts.logger.error(`the bridge (pid ${pid}) did not exit even after SIGKILL`);
  }

  private signal(pid: number, signal: NodeJS.Signals, group: boolean): void {
    if (this.exitInfo) return;
    this.opts.logger.warn(
      `the bridge (pid ${pid}) is still running; sending ${signal}${group ? ' to its process group' : ''}`,
    );
    try {
      if (group) killTree(pid, signal);
      else process.kill(pid, signal);
    } catch {
      // Gone in the meantime.
    }
  }

  private onStderr(line: string): void {
    if (!line.trim()) return;
    // The bridge prints its panel URL with the token in it on stderr, for humans; keep the
    // token out of electron-log and the status.
    const safe = line.replaceAll(this.opts.token, '<token>');
    this.remember(safe);
    const level = /\] \[(debug|info|warn|error)\] /.exec(safe)?.[1] as keyof RuntimeLogger | undefined;
    this.opts.logger[level ?? 'info'](safe);
  }

  private remember(line: string): void {
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
  }
}

/**
 * The bridge's graceful bound within a stop of `deadlineMs`: 40 %, so that it has stopped its
 * servers and exited (it SIGKILLs what is left of them shortly before its bound) before the
 * SIGTERM at half the deadline, which would cut its stop short.
 */
export function bridgeGraceMs(deadlineMs: number): number {
  return Math.max(1, Math.floor(deadlineMs * 0.4));
}

function parseJsonLine(line: string): unknown {
  const t = line.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

function isReadyMessage(m: unknown): m is BridgeReadyMessage {
  const r = m as Partial<BridgeReadyMessage> | undefined;
  return (
    !!r && r.event === 'ready' && typeof r.port === 'number' && typeof r.url === 'string' && typeof r.token === 'string'
  );
}

/** `code 2`, `signal SIGKILL`, or `spawn failure`. */
export function describeExit(e: Pick<BridgeExit, 'code' | 'signal'>): string {
  if (e.signal) return `signal ${e.signal}`;
  if (e.code !== null) return `code ${e.code}`;
  return 'spawn failure';
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
