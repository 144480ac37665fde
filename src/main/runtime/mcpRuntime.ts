// src/main/runtime/: the bridge as the app's child: start, status, restart, crash recovery, stop.
/**
 * McpRuntime: the main process's handle on the bridge. Starts it, tells the app when its
 * tools are ready, mirrors its status, restarts it when it crashes or when the servers in the
 * user's config change, and stops it (and everything it started) at quit. Plain Node: the
 * Electron wiring (main.ts) passes it paths and a logger.
 *
 * Config reload policy: when the part of the file the bridge depends on changed (its servers
 * and serving options; see userConfig.ts), a ready bridge is told to re-read the file
 * (`POST /config/reload`) and applies only the difference: added servers start, removed ones
 * stop, changed ones restart, the others keep running (bridge/reload.ts in the proxy). Only a
 * bridge that is not ready, or that does not answer, is restarted as a whole. Changes to
 * `"persistent": false` entries reach new agent sessions without touching the bridge.
 * Updates are serialised. A restarted bridge keeps its port and token, so the agents'
 * proxies, which hold its URL, reconnect on their own.
 */
import { listenAppViews } from './appViews.js';
import { randomBytes } from 'node:crypto';
import type { RuntimeStatus } from '../../shared/status.js';
import type { RestartResult, SignInResult } from '../../shared/ipcContract.js';
import { openSignIn } from './runtimeSignIn.js';
import type { BridgeClient } from './bridgeClient.js';
import { describeExit, type BridgeExit, type BridgeReadyMessage } from './bridgeProcess.js';
import { startBridgeRun, type BridgeRun as Run } from './bridgeRun.js';
import { ReadyWaiters } from './readyWaiters.js';
import { answerApprovals, checkApproval, type ApprovalVerdict } from './approvalRequests.js';
import { reloadInPlace } from './reloadInPlace.js';
import { CallGrants, type CallGrant } from './callGrants.js';
import { RuntimeStatusBook } from './runtimeStatusBook.js';
import { nodeCommand, resolveProxyCliPath } from './cliPath.js';
import { ConfigWatcher } from '../config/configWatcher.js';
import { awaitGone, freePort, killServerGroups, reapServers, serverPids } from './serverReaper.js';
import { sweepOrphans } from '../../proxy/index.js';
import { readUserConfig, type AggregateExposure, type UserConfigView } from '../config/userConfig.js';
import { errorMessage, stderrLogger, type RuntimeLogger } from '../logs/runtimeLogger.js';
import { Backoff } from '../../shared/backoff.js';
import {
  DEFAULT_BACKOFF,
  RuntimeListeners,
  type BackoffOptions,
  type BridgeInfo,
  type McpRuntimeOptions,
  type RuntimeEvents,
} from './runtimeTypes.js';

export * from './runtimeTypes.js';

const REAP_TIMEOUT_MS = 2000;

/** See the file comment. */
export class McpRuntime {
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  private run: Run | undefined;
  private port: number | undefined;
  private readonly token: string;
  private readonly log: RuntimeLogger;
  private readonly backoff: BackoffOptions;
  private cliPath: string | undefined;
  private readonly launches: Backoff;
  private gaveUp = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly waiters = new ReadyWaiters();
  private view: UserConfigView | undefined;
  private watcher: ConfigWatcher | undefined;
  private updates: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;
  private readonly listeners: RuntimeListeners;
  private readonly book: RuntimeStatusBook;
  /** Calls the user allowed in an agent's own prompt, each waiting for the bridge's ask of it (grantOnce). */
  private readonly grants: CallGrants;

  constructor(private readonly opts: McpRuntimeOptions) {
    this.log = opts.logger ?? stderrLogger;
    this.listeners = new RuntimeListeners(this.log);
    this.book = new RuntimeStatusBook(this.listeners);
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.launches = new Backoff({
      initialDelayMs: this.backoff.initialMs,
      maxDelayMs: this.backoff.maxMs,
      maxAttempts: this.backoff.maxAttempts,
    });
    this.port = opts.port;
    this.token = opts.token ?? randomBytes(32).toString('base64url');
    this.cliPath = opts.cliPath;
    this.grants = new CallGrants(opts.approvalGrantMs);
  }

  /**
   * What the bridge's approval policy answers for the tool an aggregate calls `name`
   * (`<server>__<tool>`), without a call; undefined when the bridge does not know it or is not ready.
   */
  async approvalFor(name: string): Promise<ApprovalVerdict | undefined> {
    const child = this.run?.proc.child;
    return child ? checkApproval(child, name) : undefined;
  }

  /**
   * The user allowed one call in an agent's own permission prompt: that agent session's (its
   * caller key), of `tool` of `server` (as {@link approvalFor}'s verdict names them), with those
   * arguments. The bridge's ask of exactly that call, if it comes within `approvalGrantMs`
   * (10 s), is answered Allow once without asking again; any other call is asked (callGrants.ts).
   */
  grantOnce(grant: CallGrant): void {
    this.grants.add(grant);
  }

  /** Subscribes to an event; returns the unsubscribe function. */
  on<K extends keyof RuntimeEvents>(event: K, cb: (v: RuntimeEvents[K]) => void): () => void {
    return this.listeners.on(event, cb);
  }

  /**
   * Spawns the bridge (and starts watching the config). Resolves once it is spawned, not
   * ready: use {@link whenReady}. An invalid config is reported in the status (bridge
   * `crashed` with `lastError`) and retried when the file changes.
   * @throws when called twice or when the proxy CLI cannot be found.
   */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('McpRuntime.start() called twice');
    this.cliPath ??= resolveProxyCliPath();
    this.state = 'running';
    // What proxies that died (a crash of the app, a SIGKILL) left behind; off the start-up path.
    setImmediate(() => {
      const killed = sweepOrphans();
      if (killed > 0) this.log.warn(`ended ${killed} MCP server process group(s) left behind by a proxy that died`);
    });
    if (this.opts.watchConfig !== false) {
      const watcher = new ConfigWatcher({
        path: this.opts.configFile,
        debounceMs: this.opts.configDebounceMs,
        onChange: () => void this.reload(),
        onError: (err) => this.log.warn(`config watch: ${err.message}`),
      });
      this.watcher = watcher;
      await watcher.start();
    }
    await this.reload();
  }

  /** Resolves with the bridge's address once it is ready (now, if it is). */
  whenReady(): Promise<BridgeInfo> {
    if (this.run?.info && this.book.bridge.state === 'ready') return Promise.resolve(this.run.info);
    if (this.state === 'stopping' || this.state === 'stopped')
      return Promise.reject(new Error('the MCP runtime is stopped'));
    if (this.gaveUp) return Promise.reject(new Error(this.book.bridge.lastError ?? 'the MCP bridge is not running'));
    return this.waiters.wait();
  }

  /** The current status (a copy). */
  status(): RuntimeStatus {
    return this.book.status();
  }

  /** Which servers an agent session gets from the bridge and which it runs itself. */
  mcpServerPlan(): { bridgeIds: string[]; sessionEntries: Record<string, unknown>; exposure?: AggregateExposure } {
    const sessionEntries = this.view?.sessionEntries ?? {};
    // A server known to have failed (or waiting for a sign-in) is left out: the session's proxy
    // would hold its first tools/list waiting for it. Sessions opened after it recovers get it.
    const out = new Set(['disabled', 'failed', 'needs-auth']);
    const bridgeIds = this.book.servers.filter((s) => !out.has(s.state) && !(s.id in sessionEntries)).map((s) => s.id);
    return { bridgeIds, sessionEntries: { ...sessionEntries }, exposure: this.view?.exposure };
  }

  /** Asks the bridge to restart one server; signIn/signOut: a server's OAuth sign-in (runtimeSignIn.ts). */
  restart = (id: string): Promise<RestartResult> => this.viaBridge((c) => c.restart(id));
  signIn = (id: string): Promise<SignInResult> =>
    this.viaBridge((c) => openSignIn(id, c.signIn(id), this.opts.openExternal, this.log));
  signOut = (id: string): Promise<RestartResult> => this.viaBridge((c) => c.signOut(id));
  /** Accepts or rejects a tool's drifted definition in the bridge (tool pinning). */
  decidePin = (id: string, tool: string, decision: 'accept' | 'reject', hash: string): Promise<RestartResult> =>
    this.viaBridge((c) => c.decidePin(id, tool, decision, hash));

  private async viaBridge<T extends RestartResult>(fn: (c: BridgeClient) => Promise<T>): Promise<T | RestartResult> {
    const run = this.run;
    if (!run?.info || this.book.bridge.state !== 'ready')
      return { ok: false, error: `the MCP bridge is ${this.book.bridge.state}` };
    return fn(run.client);
  }

  /**
   * Re-reads the config file and applies it (what the file watcher calls). Serialised: each
   * call runs after the previous one finished. Restarts the bridge only when its servers changed.
   */
  reload(): Promise<void> {
    this.updates = this.updates
      .then(() => this.applyConfig())
      .catch((err) => this.log.error(`config update failed: ${errorMessage(err)}`));
    return this.updates;
  }

  /**
   * Stops the bridge within `deadlineMs` (default 5000): IPC shutdown carrying the bridge's
   * share of the deadline (it stops its servers, SIGKILLing those that ignore stdin EOF and
   * SIGTERM shortly before its bound, then its group watcher), SIGTERM at half the deadline,
   * SIGKILL of its group at three quarters; then waits for its servers and its group watcher
   * by pid until the deadline and kills the process groups of any left. Resolves when every
   * process is gone. Idempotent.
   */
  stop(options: { deadlineMs?: number } = {}): Promise<void> {
    this.stopping ??= this.doStop(options.deadlineMs ?? 5000);
    return this.stopping;
  }

  /** Synchronous last resort for `process.on('exit')`: SIGKILL to the bridge and every known server group. */
  killSync(): void {
    this.run?.proc.killSync();
    killServerGroups(serverPids(this.book.servers));
  }

  private async applyConfig(): Promise<void> {
    if (this.state !== 'running') return;
    let view: UserConfigView;
    try {
      view = await readUserConfig(this.opts.configFile, { ...process.env, ...this.opts.env });
    } catch (err) {
      this.log.error(`MCP config not applied: ${errorMessage(err)}`);
      if (!this.run) this.giveUp(errorMessage(err));
      else this.book.setConfigError(errorMessage(err));
      return;
    }
    this.book.setConfigError(undefined);
    const before = this.view;
    this.view = view;
    if (this.run && before?.bridgeSignature === view.bridgeSignature && !this.gaveUp) {
      this.log.info('MCP config changed; the bridge servers did not, so the bridge keeps running');
      return;
    }
    const run = this.run;
    if (
      run?.info &&
      this.book.bridge.state === 'ready' &&
      !run.proc.hasExited &&
      (await reloadInPlace(run, this.log, this.book))
    )
      return;
    await this.replace(this.run ? 'the bridge servers changed in the config' : 'start');
  }

  /** Stops the current bridge (if any) and launches a new one on the same port. */
  private async replace(reason: string): Promise<void> {
    clearTimeout(this.restartTimer);
    this.gaveUp = false;
    this.launches.reset();
    const old = this.run;
    if (old) {
      const before = this.treePids(old);
      const startedAt = Date.now();
      const deadlineMs = this.opts.replaceDeadlineMs ?? 5000;
      this.log.info(`restarting the bridge: ${reason}`);
      old.replaced = true;
      if (!old.proc.hasExited) {
        this.book.setBridge({ ...this.book.bridge, state: 'stopping' });
        await old.proc.stop(deadlineMs);
      }
      old.unsubscribe?.();
      await awaitGone(this.treePids(old, before), Math.max(0, deadlineMs - (Date.now() - startedAt)), REAP_TIMEOUT_MS);
      this.book.bridge.restarts = (this.book.bridge.restarts ?? 0) + 1;
    }
    await this.launch();
  }

  private async launch(): Promise<void> {
    if (this.state !== 'running') return;
    const port = this.port ?? (await freePort());
    if (this.state !== 'running') return;
    this.port = port;
    const run = startBridgeRun({
      cliPath: this.cliPath!,
      node: this.opts.node ?? nodeCommand(),
      configFile: this.opts.configFile,
      port,
      token: this.token,
      logger: this.log,
      extraArgs: this.opts.bridgeArgs,
      env: this.opts.env,
    });
    const proc = run.proc;
    // The first `approval` listener answers; none: the bridge is told nobody asks here.
    answerApprovals(
      proc.child,
      () => (this.listeners.count('approval') > 0 ? (r) => this.listeners.emit('approval', r) : undefined),
      (call) => this.grants.take(call),
    );
    listenAppViews(proc.child, (v) => this.listeners.emit('appView', v));
    this.run = run;
    this.book.resetProgress();
    this.book.setBridge({ state: 'starting', pid: proc.pid, port, restarts: this.book.bridge.restarts ?? 0 });
    // Opened before the bridge listens (it retries), so start-up progress is seen live.
    run.unsubscribe = run.client.subscribe({ onStatus: (s) => this.onBridgeStatus(run, s) });
    proc.ready.then(
      (m) => this.onReady(run, m),
      () => {},
    );
    void proc.exited.then((e) => this.onExit(run, e));
  }

  private onBridgeStatus(run: Run, s: RuntimeStatus): void {
    if (run !== this.run || !Array.isArray(s.servers)) return;
    if (typeof s.bridge?.watcherPid === 'number') run.watcherPid = s.bridge.watcherPid;
    this.book.servers = s.servers;
    this.book.economy = s.economy;
    if (this.book.bridge.state === 'starting') this.book.emitProgress();
    this.listeners.emit('status', this.status());
  }

  private async onReady(run: Run, m: BridgeReadyMessage): Promise<void> {
    // The status with pids and tools, so status() is complete when whenReady() resolves.
    const full = await run.client.getStatus().catch(() => undefined);
    if (run !== this.run || run.proc.hasExited || this.state !== 'running') return;
    if (full && Array.isArray(full.servers)) [this.book.servers, this.book.economy] = [full.servers, full.economy];
    if (typeof full?.bridge?.watcherPid === 'number') run.watcherPid = full.bridge.watcherPid;
    run.info = { port: m.port, url: m.url, token: m.token, servers: m.servers };
    run.readyAt = Date.now();
    this.book.setBridge({ state: 'ready', pid: run.proc.pid, port: m.port, restarts: this.book.bridge.restarts ?? 0 });
    this.book.emitProgress();
    this.log.info(
      `MCP bridge ready on port ${m.port}: ${m.servers.map((s) => `${s.id}=${s.state}`).join(', ') || 'no servers'}`,
    );
    this.waiters.resolveAll(run.info);
    this.listeners.emit('ready', run.info);
  }

  private onExit(run: Run, e: BridgeExit): void {
    run.unsubscribe?.();
    if (run !== this.run || run.replaced || this.state !== 'running') return;
    // Servers that ignore stdin EOF would outlive their crashed parent: end their groups now.
    void reapServers(serverPids(this.book.servers), REAP_TIMEOUT_MS);
    const why = `the MCP bridge exited unexpectedly (${describeExit(e)})`;
    const lastError = [why, ...e.stderrTail.slice(-5)].join('\n');
    this.log.error(lastError);
    this.book.markServers('restarting');
    const tail = e.stderrTail.join('\n');
    if (!run.info && e.code === 2 && /already in use/.test(tail) && this.opts.port === undefined) {
      // Our port was taken while the bridge was down: a new one (agents' proxies must be re-created).
      this.log.warn(`port ${this.port} is taken; the bridge moves to a new port`);
      this.port = undefined;
    } else if (!run.info && e.code === 2) {
      return this.giveUp(lastError); // a usage or config error: retrying cannot help
    }
    if (run.readyAt !== undefined && Date.now() - run.readyAt >= this.backoff.stableMs) this.launches.reset();
    const delay = this.launches.fail();
    if (delay === undefined)
      return this.giveUp(`${lastError}\n(gave up after ${this.backoff.maxAttempts - 1} attempts)`);
    this.book.setBridge({ state: 'crashed', port: this.port, restarts: this.book.bridge.restarts ?? 0, lastError });
    this.log.warn(`restarting the MCP bridge in ${delay} ms`);
    this.restartTimer = setTimeout(() => {
      this.book.bridge.restarts = (this.book.bridge.restarts ?? 0) + 1;
      void this.launch();
    }, delay);
  }

  private giveUp(lastError: string): void {
    this.gaveUp = true;
    this.book.markServers('stopped');
    this.book.setBridge({ state: 'crashed', port: this.port, restarts: this.book.bridge.restarts ?? 0, lastError });
    this.waiters.rejectAll(new Error(lastError));
  }

  /** The pids a run's bridge leaves to wait for: its servers (as the status knows them, plus `also`) and its group watcher. */
  private treePids(run: Run, also: readonly number[] = []): number[] {
    return [
      ...new Set([
        ...also,
        ...serverPids(this.book.servers),
        ...(run.watcherPid !== undefined ? [run.watcherPid] : []),
      ]),
    ];
  }

  private async doStop(deadlineMs: number): Promise<void> {
    const startedAt = Date.now();
    this.state = 'stopping';
    clearTimeout(this.restartTimer);
    const run = this.run;
    const before = run ? this.treePids(run) : serverPids(this.book.servers);
    if (run && !run.proc.hasExited) this.book.setBridge({ ...this.book.bridge, state: 'stopping' });
    await Promise.all([this.watcher?.close().catch(() => {}), run?.proc.stop(deadlineMs)]);
    run?.unsubscribe?.();
    // A bridge that stopped in time has ended (and reaped) all of them; after a forced stop the
    // watcher is still ending the server groups: its time runs to the deadline, then ours.
    const pids = run ? this.treePids(run, before) : before;
    const left = await awaitGone(pids, Math.max(0, deadlineMs - (Date.now() - startedAt)), REAP_TIMEOUT_MS);
    if (left.length) this.log.error(`MCP server processes still alive after stop: ${left.join(', ')}`);
    this.book.markServers('stopped');
    this.state = 'stopped';
    this.book.setBridge({ state: 'stopped', port: this.port, restarts: this.book.bridge.restarts ?? 0 });
    this.waiters.rejectAll(new Error('the MCP runtime was stopped'));
  }
}
