// src/proxy/process/: a server as a child process, and nothing of it left behind.
/**
 * The client side of a stdio MCP server: spawns it (no shell; its own process group on
 * POSIX so the whole tree can be signalled), reads newline-framed JSON-RPC from stdout,
 * logs stderr line by line under the server's tag, and stops it in steps (stdin EOF,
 * grace, SIGTERM to the group, grace, SIGKILL to the group, then a wait until no process
 * of the group is left: see stopServerTree.ts). Nothing started here should outlive a `close()`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { StderrLines } from './stderrLines.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { FrameDecoder, type DecodedFrame } from '../stdio/framing.js';
import { serverMessageLimit } from '../common/messageLimits.js';
import { AwaitedReplies, serverLimitText } from '../jsonrpc/awaitedReplies.js';
import { LineBudget } from '../common/lineBudget.js';
import { StdoutJunk } from './stdoutJunk.js';
import { Logger, errorText } from '../common/logger.js';
import { awaitedWrite } from '../common/awaitedWrite.js';
import { killTreeOnExit } from './processTree.js';
import { trackServerGroup } from './groupRegistry.js';
import { spawnError } from './spawnCommand.js';
import { planServerLaunch, type LaunchInfo, type ServerLaunch } from './serverLaunch.js';
import { CommandNotFoundError } from './commandResolver.js';
import { parseRpcFrame } from '../jsonrpc/jsonRpc.js';
import { redactArgs } from '../config/redact.js';
import { signalServerTree, stopServerTree } from './stopServerTree.js';
import type { SandboxPolicy } from '../../shared/sandbox.js';
import type { SandboxedLaunch } from '../sandbox/sandboxLaunch.js';

export { OversizeMessageError } from './stdoutJunk.js';

export { DEFAULT_GROUP_EXIT_TIMEOUT_MS, DEFAULT_STDIN_GRACE_MS, DEFAULT_TERM_GRACE_MS } from './stopServerTree.js';
export const DEFAULT_STDERR_TAIL_LINES = 200;
/** A line on a server's stdout is capped at twice a client's message (common/messageLimits.ts). */
export const DEFAULT_CHILD_MAX_MESSAGE_BYTES = serverMessageLimit();
/** Stderr lines logged per server: a burst, then this many a second (all are kept in the tail). */
export const STDERR_LOG_BURST = 200;
export const STDERR_LOG_PER_SECOND = 50;

export interface ChildProcessTransportOptions {
  command: string;
  args?: string[];
  /** The `${secret:NAME}` names whose values `args` hold (said at every start: the process list shows argv). */
  argSecrets?: string[];
  /** The entry's own variables, on top of a safe inherited set (see `buildChildEnv`). */
  env?: Record<string, string>;
  cwd?: string;
  /** Server id; the log tag for everything about this server, its stderr included. */
  name: string;
  logger?: Logger;
  stdinGraceMs?: number;
  termGraceMs?: number;
  stderrTailLines?: number;
  /**
   * Largest stdout line accepted (default 20 MiB); longer ones are skipped up to their newline,
   * and the request they answer fails at once (jsonrpc/awaitedReplies.ts).
   */
  maxMessageBytes?: number;
  groupExitTimeoutMs?: number;
  /** Runs it in this sandbox (src/proxy/sandbox/); never without it when set. */
  sandbox?: SandboxPolicy;
}

export interface ChildExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when the exit followed `close()`. */
  expected: boolean;
}

/** SDK `Transport` over a spawned stdio MCP server; see the module comment. */
export class ChildProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Each complete stderr line, as it arrives (also logged and kept in `stderrTail()`). */
  onstderr?: (line: string) => void;
  /** The direct child's exit, expected or not. */
  onexit?: (info: ChildExitInfo) => void;

  private readonly log: Logger;
  private child?: ChildProcessWithoutNullStreams;
  private started = false;
  private startPromise?: Promise<void>;
  private closing = false;
  private closedFired = false;
  private shutdownPromise?: Promise<void>;
  private exitInfoValue?: ChildExitInfo;
  private resolveExited!: () => void;
  private readonly exited = new Promise<void>((r) => (this.resolveExited = r));
  private unregisterExitKill?: () => void;
  private launchInfo?: LaunchInfo;
  private sandboxed?: SandboxedLaunch;
  private readonly stderr: StderrLines;
  private readonly decoder: FrameDecoder;
  private readonly stderrBudget: LineBudget;
  private readonly junk: StdoutJunk;
  private readonly awaited = new AwaitedReplies();
  private readonly maxBytes: number;

  constructor(private readonly opts: ChildProcessTransportOptions) {
    this.log = (opts.logger ?? Logger.create('proxy')).child(opts.name);
    this.maxBytes = opts.maxMessageBytes ?? DEFAULT_CHILD_MAX_MESSAGE_BYTES;
    this.decoder = new FrameDecoder({ mode: 'newline', maxMessageBytes: this.maxBytes });
    this.junk = new StdoutJunk(opts.name, this.log, this.maxBytes);
    this.stderr = new StderrLines(opts.stderrTailLines ?? DEFAULT_STDERR_TAIL_LINES, (line) => this.onStderrLine(line));
    this.stderrBudget = new LineBudget(STDERR_LOG_PER_SECOND, STDERR_LOG_BURST, (n) =>
      this.log.warn(
        `suppressed ${n} stderr lines (more than ${STDERR_LOG_PER_SECOND} a second); the status tail keeps the latest`,
      ),
    );
  }

  /** The direct child's pid once spawned (on POSIX also its process group id). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the direct child exited, once it has. */
  get exitInfo(): ChildExitInfo | undefined {
    return this.exitInfoValue;
  }

  /** The last stderr lines (at most `stderrTailLines`), oldest first. */
  stderrTail(): string[] {
    return this.stderr.tail();
  }

  /** The command and PATH of the last spawn (home shortened), for the status. */
  get launch(): LaunchInfo | undefined {
    return this.launchInfo;
  }

  start(): Promise<void> {
    if (this.started) return Promise.reject(new Error(`ChildProcessTransport '${this.opts.name}' already started`));
    this.started = true;
    this.startPromise = this.prepareAndSpawn();
    return this.startPromise;
  }

  private failStart(err: Error): Error {
    this.log.error(err.message);
    this.onerror?.(err);
    this.closing = true;
    this.fireClose();
    return err;
  }

  /** The PATH and command first (serverLaunch.ts; may read the login shell once), then the spawn. */
  private async prepareAndSpawn(): Promise<void> {
    const { command, args = [], cwd, name } = this.opts;
    let launch: ServerLaunch;
    try {
      launch = await planServerLaunch({ name, command, args, entryEnv: this.opts.env, cwd, logger: this.log });
      if (this.opts.sandbox) launch = await this.enterSandbox(launch, this.opts.sandbox);
    } catch (err) {
      const told = err instanceof CommandNotFoundError || (err as Error).name === 'SandboxUnavailableError';
      throw this.failStart(told ? (err as Error) : spawnError(name, command, cwd, err as NodeJS.ErrnoException));
    }
    if (this.closing) throw this.failStart(new Error(`server '${name}' was stopped before it started`));
    const argvSecrets = this.opts.argSecrets ?? [];
    this.launchInfo = argvSecrets.length > 0 ? { ...launch.info, argvSecrets } : launch.info;
    return new Promise<void>((resolve, reject) => this.spawnChild(launch, resolve, reject));
  }

  /** The launch inside its sandbox (src/proxy/sandbox/, loaded for the first sandboxed server). */
  private async enterSandbox(launch: ServerLaunch, policy: SandboxPolicy): Promise<ServerLaunch> {
    const { sandboxLaunch } = await import('../sandbox/sandboxLaunch.js');
    const { name, cwd } = this.opts;
    this.sandboxed = await sandboxLaunch({
      name,
      policy,
      launch,
      ...(cwd !== undefined ? { cwd } : {}),
      log: this.log,
    });
    return this.sandboxed.launch;
  }

  private spawnChild(launch: ServerLaunch, resolve: () => void, reject: (e: Error) => void): void {
    const { command, args = [], cwd, name } = this.opts;
    const fail = (err: Error) => reject(this.failStart(err));
    let child: ChildProcessWithoutNullStreams;
    try {
      const { plan, env } = launch;
      child = spawn(plan.command, plan.args, {
        cwd,
        env,
        // POSIX: the resolved path is run, the server still sees the name it was given as argv[0].
        ...(process.platform !== 'win32' ? { argv0: command } : {}),
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        // Own process group on POSIX, so `kill(-pid)` reaches the whole tree. Not unref'd:
        // the child is ours to stop.
        detached: process.platform !== 'win32',
        windowsHide: plan.windowsHide,
        windowsVerbatimArguments: plan.windowsVerbatimArguments,
      });
    } catch (err) {
      fail(spawnError(name, command, cwd, err as NodeJS.ErrnoException));
      return;
    }
    this.child = child;
    let spawned = false;
    child.once('spawn', () => {
      spawned = true;
      trackServerGroup(child.pid!, this.log); // ended by the watcher or the next sweep if we die
      this.unregisterExitKill = killTreeOnExit(child.pid!);
      this.log.debug(`started pid ${child.pid}: ${command} ${redactArgs(args).join(' ')}`.trimEnd());
      this.log.debug(`command ${launch.info.command}, PATH (${launch.info.pathFrom}) ${launch.info.path}`);
      const inArgv = this.opts.argSecrets ?? [];
      if (inArgv.length > 0)
        this.log.warn(
          `its arguments hold the secret${inArgv.length > 1 ? 's' : ''} ${inArgv.join(', ')}: while it runs, other users ` +
            'of this computer can read the value in the process list (ps, /proc/<pid>/cmdline); ' +
            'give it to the server in "env" instead where the server reads it from there',
        );
      resolve();
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (!spawned) fail(spawnError(name, command, cwd, err));
      else this.onerror?.(err);
    });
    child.on('exit', (code, signal) => {
      if (spawned) this.onChildExit(code, signal);
    });
    child.stdin.on('error', (err) => {
      // EPIPE after the child died: the exit handler reports that; sends see the error.
      this.log.debug(`stdin: ${errorText(err)}`);
    });
    child.stdout.on('data', (chunk: Buffer) => this.onFrames(this.decoder.push(chunk)));
    child.stdout.on('end', () => {
      this.onFrames(this.decoder.end());
      this.junk.flush();
    });
    child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    child.stderr.on('end', () => {
      this.stderr.end();
      this.stderrBudget.flush();
    });
  }

  private onFrames(frames: DecodedFrame[]): void {
    for (const frame of frames) {
      if (frame.kind === 'oversize') {
        const error = this.junk.oversize(frame.bytes, frame.idHint);
        if (error) this.onerror?.(error);
        const hint = { id: frame.idHint, shape: frame.shape };
        const { answers, reply } = this.awaited.oversize(frame.bytes, hint, {
          who: `server '${this.opts.name}'`,
          limit: serverLimitText(this.maxBytes),
        });
        if (reply)
          this.send(reply).catch((err: Error) => this.log.debug(`answer to an oversize request: ${errorText(err)}`));
        for (const answer of answers) this.safely('onmessage', () => this.onmessage?.(answer));
        continue;
      }
      const msg = parseRpcFrame(frame.body);
      if (!msg) {
        const err = this.junk.notJsonRpc(frame.body);
        if (err) this.onerror?.(err);
        continue;
      }
      this.awaited.received(msg);
      this.safely('onmessage', () => this.onmessage?.(msg));
    }
  }

  private onStderrLine(line: string): void {
    if (this.stderrBudget.allow()) this.log.info(line);
    this.sandboxed?.onStderr(line);
    this.safely('onstderr', () => this.onstderr?.(line));
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closing || this.exitInfoValue || !stdin.writable) {
      return Promise.reject(new Error(`server '${this.opts.name}' is not connected`));
    }
    this.awaited.sent(message);
    return awaitedWrite(
      stdin,
      JSON.stringify(message) + '\n',
      () => new Error(`server '${this.opts.name}' stdin closed before the message was written`),
    );
  }

  private onChildExit(code: number | null, signal: NodeJS.Signals | null): void {
    const info: ChildExitInfo = { code, signal, expected: this.closing };
    this.exitInfoValue = info;
    this.unregisterExitKill?.();
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (info.expected) this.log.debug(`exited with ${how}`);
    else this.log.warn(`exited unexpectedly with ${how}`);
    this.resolveExited();
    this.safely('onexit', () => this.onexit?.(info));
    if (!this.closing) {
      // Unexpected: clean up what is left of the tree, then report the close.
      this.closing = true;
      this.shutdownPromise = this.shutdown();
    }
  }

  /**
   * Stops the server and its whole tree; resolves once the child has exited and (POSIX)
   * its process group is empty. A second call while the first runs kills at once.
   */
  async close(): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.closing = true;
      this.fireClose();
      return;
    }
    if (this.shutdownPromise) {
      if (!this.closedFired) signalServerTree(this.child?.pid, 'SIGKILL', this.exitInfoValue !== undefined, this.log);
      return this.shutdownPromise;
    }
    this.closing = true;
    this.shutdownPromise = (async () => {
      await this.startPromise?.catch(() => undefined);
      if (this.child?.pid !== undefined) await this.shutdown();
    })();
    return this.shutdownPromise;
  }

  private async shutdown(): Promise<void> {
    await stopServerTree(this.child!, this.exited, () => this.exitInfoValue !== undefined, this.opts, this.log);
    this.stderr.end();
    this.fireClose();
  }

  private fireClose(): void {
    if (this.closedFired) return;
    this.closedFired = true;
    void this.sandboxed?.dispose();
    this.safely('onclose', () => this.onclose?.());
  }

  /** A throwing listener must not break the transport's own bookkeeping. */
  private safely(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.warn(`${what} listener failed: ${errorText(err)}`);
    }
  }
}
