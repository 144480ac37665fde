// src/proxy/hub/: routing between downstream sessions and the upstreams they share.
/**
 * The Hub owns the configured upstreams and the downstream sessions connected to them.
 * A session sees either every server (aggregate scope, names namespaced) or one server
 * (single scope, names as the server has them, unknown methods passed through). Many
 * sessions share one upstream: the hub routes progress, cancellation, server-to-client
 * requests, subscriptions and list changes between them.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { InvalidEntry, ProxyConfig, ServerEntry } from '../config/config.js';
import type { ConfigOptionChanges } from '../config/configDiff.js';
import { isToolAllowed } from '../config/toolFilter.js';
import { entrySecrets } from '../config/redact.js';
import type { Logger } from '../common/logger.js';
import type { AskUser } from './approval/approvalQuestion.js';
import { NameTable, namespacedName, type NamedItem } from './naming.js';
import type { HubSession, SessionHost, SessionScope } from './sessionContracts.js';
import { SubscriptionTable } from './subscriptionTable.js';
import { TaskTable } from './tasks/taskTable.js';
import { HeldTaskTable } from '../protocol/crossings/heldTaskTable.js';
import { parkTaskInput } from '../protocol/crossings/heldTasks.js';
import { routeUpstreamNotification } from './upstreamNotification.js';
import { ProgressTable } from './progressTable.js';
import { itemMatches } from './uriTemplateMatch.js';
import { HeldInputTable } from '../protocol/crossings/heldInputTable.js';
import { Upstream, DEFAULT_SUPERVISION, type SupervisionOptions, type UpstreamListener } from '../upstream/upstream.js';
import { invalidEntryStatus } from '../upstream/upstreamStatus.js';
import type { ListKind, Item } from '../upstream/listCache.js';
import type { UpstreamTransportOptions } from '../upstream/upstreamTransport.js';
import { DownstreamSession } from './downstreamSession.js';
import { ToolExposure } from './economy/toolExposure.js';
import { META_TOOL_NAMES } from './economy/metaToolNames.js';
import { KEPT_RESULT_SCHEME } from './economy/resultCap.js';
import { ServerRequestRouter } from './serverRequestRouter.js';
import { PinBook } from '../pinning/pinBook.js';
import type { RpcRequest, RpcResponse } from '../jsonrpc/jsonRpc.js';
import type { ServerStatus, ToolDrift } from '../../shared/status.js';
import type { ActivityLog } from '../activity/activityLog.js';
import type { ActivitySetting } from '../config/configTypes.js';
import type { ActivityRecorder } from '../activity/activityRecorder.js';
import type { RequestTracer } from '../tracing/requestTracer.js';
import { listedIn } from '../apps/toolAudience.js';
import type { AppViewBook } from '../apps/appViewBook.js';

export interface HubOptions {
  supervision?: Partial<SupervisionOptions>;
  /** After a session's input ends, how long its received requests may still take (default 10 s). */
  drainOnEofMs?: number;
  /** The cap on a client's messages (`--max-message-bytes`); a server's may be twice that (common/messageLimits.ts). */
  maxMessageBytes?: number;
  /** The activity log without an `"activity"` key: the bridge keeps it in memory, a stdio proxy not at all. */
  activityDefault?: ActivitySetting;
  /** The data folder for `"activity": "file"` (default `$QIMING_DATA_DIR`). */
  dataDir?: string;
  /** How sessions reach this hub, for traces (`network.transport`): the bridge's over TCP, else a pipe. */
  tcp?: boolean;
  /** Test seam: each upstream's transport instead of the configured one (unset in real use). */
  transportFactory?: UpstreamTransportOptions['transportFactory'];
  /** The folder of the tool pins (pinning/pinFolder.ts); unset: no pinning (a hub of tests, `convert`). */
  pinDir?: string;
  /** The pinning of a config that sets none (default `block`). */
  pinDefault?: 'off' | 'warn' | 'block';
  /** The caller key of the agent session this proxy serves (`QIMING_CALLER_KEY`), for its calls to a bridge. */
  callerKey?: string;
}

export type { SessionScope } from './sessionContracts.js';

/**
 * Whether this process traces its requests (tracing/, loaded only then), and where to: the
 * standard OpenTelemetry variables first, then the config's `"tracing": {"endpoint"}`. On:
 * the exporter's URL, or `''` for the one the variables name (or the OTLP default).
 */
function tracingUrl(config: ProxyConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const x = env.OTEL_TRACES_EXPORTER;
  if (/^true$/i.test(env.OTEL_SDK_DISABLED ?? '') || (x && !/(^|,)\s*otlp\s*(,|$)/.test(x))) return undefined;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT) return '';
  const e = config.tracing?.endpoint;
  return e ? `${e.replace(/\/+$/, '')}/v1/traces` : x ? '' : undefined;
}

export class Hub implements SessionHost {
  readonly upstreams = new Map<string, Upstream>();
  readonly sessions = new Set<DownstreamSession>();
  readonly serverRequests: ServerRequestRouter;
  readonly subscriptions = new SubscriptionTable();
  readonly tasks = new TaskTable<HubSession, Upstream>();
  /** Calls of 2026-07-28 clients to 2025-11-25 servers waiting for client input (heldCall.ts). */
  readonly held = new HeldInputTable();
  readonly heldTasks = new HeldTaskTable();
  /** Called whenever any server's status changes. */
  onstatus?: () => void;
  /** Who answers an approval `ask` for the user (the app over IPC: modes/bridgeApproval.ts). */
  askUser?: AskUser;
  private readonly startedAt = Date.now();
  private tables?: { tools: NameTable; prompts: NameTable };
  /** Bumped on every change of a list kind; sessions compare it with what they last saw. */
  readonly listVersion: Record<ListKind, number> = { tools: 0, prompts: 0, resources: 0 };
  /** Bumped whenever what a list shows may have changed (a list, a server's state, the config): what caches key on. */
  listsEpoch = 0;
  /** What an aggregate session's `tools/list` gives (economy/toolExposure.ts). */
  readonly exposure = new ToolExposure(this);
  readonly progress = new ProgressTable<HubSession>();
  /** Tool pinning (src/proxy/pinning/): what of each server's tool list sessions see. */
  readonly pins?: PinBook;

  readonly drainOnEofMs?: number;
  readonly maxMessageBytes?: number;
  readonly callerKey?: string;
  private readonly supervision: SupervisionOptions;
  private readonly upstreamOptions: UpstreamTransportOptions;
  /** Config entries that could not be read: no upstream, a failed line in the status ({@link setInvalid} on each reload). */
  invalid: readonly InvalidEntry[];
  /** Each session's requests (activity/), once its code loaded; unset while the log is off. */
  activity?: ActivityLog;
  // What sessions record and trace their requests in: the log, the tracer (around the log), or neither.
  recorder?: ActivityRecorder;
  /** What the bridge keeps for MCP Apps views (apps/appViewBook.ts); set by the bridge only. */
  appViews?: AppViewBook;
  private tracer?: RequestTracer;
  private readonly activityLoad?: Promise<void>;

  constructor(
    /** Replaced as a whole by {@link setOptions} when the config is reloaded. */
    public config: ProxyConfig,
    readonly logger: Logger,
    options: HubOptions = {},
  ) {
    this.drainOnEofMs = options.drainOnEofMs;
    this.maxMessageBytes = options.maxMessageBytes;
    this.callerKey = options.callerKey;
    this.supervision = { ...DEFAULT_SUPERVISION, ...options.supervision };
    this.upstreamOptions = { maxMessageBytes: options.maxMessageBytes, transportFactory: options.transportFactory };
    this.serverRequests = new ServerRequestRouter(this);
    if (options.pinDir !== undefined) this.pins = new PinBook(options.pinDir, this, options.pinDefault);
    for (const entry of config.servers) this.upstreams.set(entry.id, this.createUpstream(entry));
    this.invalid = config.invalid ?? [];
    const activity = config.activity ?? options.activityDefault ?? 'off';
    const url = tracingUrl(config);
    // Their code is in its own files (activity/, tracing/), loaded only when on; start() waits for it.
    if (activity !== 'off' || url !== undefined)
      this.activityLoad = import('../activity/openRecorders.js').then(async (m) => {
        // Sets `activity`, `tracer` and `recorder`.
        Object.assign(
          this,
          await m.openRecorders(activity, url, {
            mask: logger.secrets,
            logger,
            capture: (id) => this.upstreams.get(id)?.entry.capture === true,
            dataDir: options.dataDir ?? process.env.QIMING_DATA_DIR,
            tcp: options.tcp,
          }),
        );
      });
  }

  setInvalid(entries: InvalidEntry[]): void {
    this.invalid = entries;
    this.onstatus?.();
  }

  private createUpstream(entry: ServerEntry): Upstream {
    this.logger.secrets.add(entrySecrets(entry));
    // eslint-disable-next-line prefer-const -- assigned once, after the listener that refers to it
    let u: Upstream;
    const listener: UpstreamListener = {
      state: () => this.onUpstreamState(u),
      listChanged: (up, kind) => this.onListChanged(up, kind),
      notification: (up, n, related) => routeUpstreamNotification(this, up, n, related),
      request: (up, req, related) => this.serverRequests.route(up, req, related),
    };
    u = new Upstream(entry, this.logger, listener, this.supervision, this.upstreamOptions);
    if (this.pins) u.lists.toolGate = this.pins.gate(entry);
    return u;
  }

  /** The activity log once its code loaded, or undefined when it is off. */
  async activityReady(): Promise<ActivityLog | undefined> {
    await this.activityLoad;
    return this.activity;
  }

  /** Starts every enabled server in parallel; resolves when each has settled this attempt. */
  async start(): Promise<void> {
    await this.activityLoad;
    await Promise.all([...this.upstreams.values()].map((u) => u.start()));
  }

  async stop(): Promise<void> {
    for (const c of this.held.all()) c.release('the proxy is stopping');
    for (const s of [...this.sessions]) await s.close();
    // The spans are flushed while the servers stop, within the tracer's own deadline.
    await Promise.all([...[...this.upstreams.values()].map((u) => u.stop()), this.tracer?.close()]);
    await this.activity?.close();
  }

  /** Adds a config entry's server, or replaces (stops first) the one with its id; the caller starts it. Own-route sessions reach it by id. */
  async putUpstream(entry: ServerEntry): Promise<Upstream> {
    await this.upstreams.get(entry.id)?.stop();
    const u = this.createUpstream(entry);
    this.upstreams.set(entry.id, u);
    this.relist();
    this.onstatus?.();
    return u;
  }

  /** Takes a server out: own-route sessions closed with `reason`, its tree stopped, aggregate sessions told `list_changed`. */
  async removeUpstream(id: string, reason: string): Promise<void> {
    const u = this.upstreams.get(id);
    if (!u) return;
    this.upstreams.delete(id);
    this.pins?.drop(id);
    this.relist();
    await Promise.all([...this.sessions].filter((s) => s.scope.serverId === id).map((s) => s.close(0, reason)));
    await u.stop();
    for (const k of ['tools', 'prompts', 'resources'] as const) this.onListChanged(u, k);
    this.onstatus?.();
  }

  /**
   * New top-level options, no server touched: `toolTimeouts` and `maxResultBytes` from the next call; `toolNaming`
   * renames, the tool exposure options change what aggregates list (both with list_changed).
   */
  setOptions(changes: ConfigOptionChanges): void {
    this.config = { ...this.config, ...changes };
    if ('pinning' in changes) for (const u of this.upstreams.values()) if (u.isReady) void u.regateTools();
    const renamed = changes.toolNaming !== undefined;
    const exposed = [changes.toolExposure, changes.toolBudgetTokens, changes.exposeAlways, changes.serverDescriptions];
    if (!renamed && exposed.every((c) => c === undefined)) return;
    this.relist();
    for (const k of renamed ? (['tools', 'prompts'] as const) : (['tools'] as const)) this.aggregateListChanged(k);
  }

  /** Attaches a downstream transport; the caller starts the returned session. */
  connect(transport: Transport, scope: SessionScope = {}, onClosed?: () => void): DownstreamSession {
    const session = new DownstreamSession(this, transport, scope);
    this.sessions.add(session);
    session.onclosed = () => {
      this.sessions.delete(session);
      this.progress.dropSession(session);
      this.tasks.dropSession(session);
      this.serverRequests.dropSession(session);
      this.onstatus?.();
      onClosed?.();
    };
    this.onstatus?.();
    return session;
  }

  inScope(scope: SessionScope): Upstream[] {
    if (scope.serverId !== undefined) {
      const u = this.upstreams.get(scope.serverId);
      return u ? [u] : [];
    }
    return [...this.upstreams.values()];
  }

  sessionsFor(u: Upstream): DownstreamSession[] {
    return [...this.sessions].filter((s) => s.scope.serverId === undefined || s.scope.serverId === u.id);
  }

  /**
   * Waits (bounded by the ready timeout, counted from hub start) for servers still in their
   * first start attempt. Returns undefined when there is nothing to wait for.
   */
  waitReady(scope: SessionScope): Promise<void> | undefined {
    // Undefined (nothing to await) on the hot path, once everything has settled.
    const left = this.readyWindowLeftMs(scope);
    if (left === 0) return undefined;
    return Promise.all(this.inScope(scope).map((u) => u.whenSettled(left))).then(() => undefined);
  }

  /** How long a list may still wait for servers of `scope` in their first start (0: none left). */
  readyWindowLeftMs(scope: SessionScope): number {
    const left = this.startedAt + this.config.readyTimeoutMs - Date.now();
    return left > 0 && this.inScope(scope).some((u) => !u.isSettled) ? left : 0;
  }

  upstream(id: string): Upstream | undefined {
    return this.upstreams.get(id);
  }

  toolAllowed(u: Upstream, name: string): boolean {
    return isToolAllowed(u.entry.toolFilter, name); // command-line filters are merged in by loadCliConfig
  }

  readyIds(): string[] {
    return [...this.upstreams.values()].filter((u) => u.isReady).map((u) => u.id);
  }

  /** The aggregate scope's tools with the server of each, names as exposed (for tool search and the status). */
  toolsByServer(): { serverId: string; tool: Item }[] {
    const out: { serverId: string; tool: Item }[] = [];
    for (const u of this.upstreams.values())
      if (u.isReady) for (const tool of this.toolsOf(u, {})) out.push({ serverId: u.id, tool });
    return out;
  }

  /** `u`'s tools its filter and MCP Apps' visibility let through, as its own route (`single`) or an aggregate names them. */
  private toolsOf(u: Upstream, scope: SessionScope): Item[] {
    const out: Item[] = [];
    const single = scope.serverId !== undefined;
    for (const t of u.lists.tools) {
      const name = String(t.name);
      if (this.toolAllowed(u, name) && listedIn(u, t, scope))
        out.push(single ? t : { ...t, name: this.names().tools.exposedName(u.id, name) ?? name });
    }
    return out;
  }

  /** Lists merged over a scope; names namespaced in aggregate scope. */
  list(kind: ListKind | 'templates', scope: SessionScope): Item[] {
    const single = scope.serverId !== undefined;
    const out: Item[] = [];
    for (const u of this.inScope(scope)) {
      if (!u.isReady) continue;
      if (kind === 'tools') out.push(...this.toolsOf(u, scope));
      else if (kind === 'prompts') {
        for (const p of u.lists.prompts)
          out.push(single ? p : { ...p, name: this.names().prompts.exposedName(u.id, String(p.name)) ?? p.name });
      } else if (kind === 'resources') out.push(...u.lists.resources);
      else out.push(...u.lists.templates);
    }
    return out;
  }

  resolveTool(exposed: string): NamedItem | undefined {
    return this.names().tools.resolve(exposed);
  }

  resolvePrompt(exposed: string): NamedItem | undefined {
    return this.names().prompts.resolve(exposed);
  }

  /**
   * The server that owns a resource URI: exact match, then template match, then the only resource server.
   * None for a kept result's URI (economy/resultCap.ts): the session that kept it answers it, and
   * any other is refused here, never handed to a server.
   */
  resourceOwner(uri: string, scope: SessionScope): Upstream | undefined {
    if (uri.startsWith(KEPT_RESULT_SCHEME)) return undefined;
    const candidates = this.inScope(scope).filter((u) => u.isReady);
    if (scope.serverId !== undefined) return candidates[0];
    const exact = candidates.find((u) => u.lists.resources.some((r) => r.uri === uri));
    if (exact) return exact;
    const templ = candidates.find((u) => u.lists.templates.some((t) => itemMatches(t, uri)));
    if (templ) return templ;
    const withResources = candidates.filter((u) => u.capabilities.resources);
    return withResources.length === 1 ? withResources[0] : undefined;
  }

  /** Registers a progress route; returns the token to send upstream. */
  routeProgress(
    u: Upstream,
    session: HubSession,
    token: string | number,
    requestId: string | number,
    touch: () => void,
  ): string {
    return this.progress.add(u.id, { session, token, requestId, touch });
  }

  holdProgress(
    u: Upstream,
    upstreamToken: string,
    session: HubSession,
    token: string | number,
    requestId: string | number,
    touch: () => void,
  ): void {
    this.progress.put(u.id, upstreamToken, { session, token, requestId, touch });
  }

  /** The session and downstream request behind an upstream progress token, if routed. */
  progressOwner(u: Upstream, upstreamToken: unknown): { session: HubSession; requestId: string | number } | undefined {
    return this.progress.get(u.id, upstreamToken);
  }

  dropProgress(u: Upstream, upstreamToken: string): void {
    this.progress.delete(u.id, upstreamToken);
  }

  subscribe(
    u: Upstream,
    uri: string,
    s: HubSession,
    params: Record<string, unknown> | undefined,
  ): Promise<RpcResponse> {
    return this.subscriptions.subscribe(u, uri, s, params);
  }

  unsubscribe(u: Upstream, uri: string, s: HubSession): Promise<RpcResponse> {
    return this.subscriptions.unsubscribe(u, uri, s);
  }

  /** A server request tied to a 2026 client's task: parked for its `tasks/update` (protocol/crossings/heldTasks.ts). */
  parkTaskInput(u: Upstream, req: RpcRequest): boolean {
    return parkTaskInput(this.heldTasks, u, req);
  }

  urlElicitationsRequired(u: Upstream, s: HubSession, data: unknown): void {
    this.serverRequests.urlElicitationsRequired(u, s, data);
  }

  releaseSubscriptions(s: HubSession): void {
    this.subscriptions.releaseAll(s);
  }

  status(): ServerStatus[] {
    const running = [...this.upstreams.values()].map((u) => {
      const s = u.status(this.sessionsFor(u).length);
      const pinning = this.pins?.status(u.id);
      const health = this.activity?.healthOf(u.id);
      return { ...s, ...(pinning ? { pinning } : {}), ...(health ? { health } : {}) };
    });
    const invalid = this.invalid
      .filter((e) => !this.upstreams.has(e.id))
      .map((e) => invalidEntryStatus(e, this.logger.secrets));
    return invalid.length ? [...running, ...invalid] : running;
  }

  /** The withheld tool (tool pinning) a session of `scope` calls `exposed`, and its server. */
  withheldTool(exposed: string, scope: SessionScope): { serverId: string; drift: ToolDrift } | undefined {
    if (!this.pins) return undefined;
    for (const u of this.inScope(scope))
      for (const name of this.pins.withheldNames(u.id)) {
        const named =
          scope.serverId !== undefined ? name === exposed : exposed === namespacedName(u.id, name) || exposed === name;
        const drift = named ? this.pins.withheld(u.id, name) : undefined;
        if (drift) return { serverId: u.id, drift };
      }
    return undefined;
  }

  /** Accepts or rejects a drifted tool of server `id` (tool pinning); its list is checked again and sessions told. */
  async pinDecision(
    id: string,
    tool: string,
    decision: 'accept' | 'reject',
    hash: string,
  ): Promise<{ ok: boolean; error?: string; status?: number }> {
    const u = this.upstreams.get(id);
    if (!u || !this.pins) return { ok: false, status: 404, error: `unknown server: ${id}` };
    const result = this.pins.decide(id, tool, decision, hash);
    if (result.ok) await u.regateTools();
    this.onstatus?.();
    return result;
  }

  private names(): { tools: NameTable; prompts: NameTable } {
    if (!this.tables) {
      const tools: NamedItem[] = [];
      const prompts: NamedItem[] = [];
      for (const u of this.upstreams.values()) {
        for (const t of u.lists.tools) tools.push({ serverId: u.id, name: String(t.name) });
        for (const p of u.lists.prompts) prompts.push({ serverId: u.id, name: String(p.name) });
      }
      // Every configured id, ready or not: a name does not depend on which servers are up (naming.ts).
      const ids = [...this.upstreams.keys()];
      this.tables = {
        tools: new NameTable(tools, this.config.toolNaming, ids, META_TOOL_NAMES),
        prompts: new NameTable(prompts, this.config.toolNaming, ids),
      };
    }
    return this.tables;
  }

  private onUpstreamState(u: Upstream): void {
    this.relist();
    if (u.isReady) for (const k of ['tools', 'prompts', 'resources'] as const) this.onListChanged(u, k);
    if (u.isReady) this.subscriptions.renew(u);
    // Its tools left the list without a list_changed: one is due if that flipped the mode `auto` gives.
    else if (this.exposure.flippedWithout(u.id)) this.aggregateListChanged('tools');
    this.onstatus?.();
  }

  /** What a list shows may have changed: names and what is weighed per epoch are recomputed on use. */
  private relist(): void {
    this.tables = undefined;
    this.listsEpoch++;
  }

  private aggregateListChanged(kind: ListKind): void {
    this.listVersion[kind]++;
    for (const s of this.sessions) if (s.scope.serverId === undefined) s.listChanged(kind);
  }

  private onListChanged(u: Upstream, kind: ListKind): void {
    this.relist();
    this.listVersion[kind]++;
    for (const s of this.sessionsFor(u)) s.listChanged(kind);
    if (kind === 'tools') this.onstatus?.();
  }
}
