/**
 * What a downstream session (and the routing of its requests) needs from the hub, and what
 * the hub's routers need from a session: narrow interfaces, so that hub.ts,
 * downstreamSession.ts, routeRequest.ts, serverRequestRouter.ts and subscriptionTable.ts
 * depend on this file and not on each other. It imports nothing from hub/.
 */
import type { ProxyConfig } from '../config/config.js';
import type { Logger } from '../common/logger.js';
import type { Upstream } from '../upstream/upstream.js';
import type { Item, ListKind } from '../upstream/listCache.js';
import type { PendingHandle, RequestOptions } from '../jsonrpc/jsonRpcPeer.js';
import type { RequestId, RpcErrorObject, RpcRequest, RpcResponse } from '../jsonrpc/jsonRpc.js';
import type { NamedItem } from './naming.js';
import type { TaskTable } from './tasks/taskTable.js';
import type { HeldInputTable } from '../protocol/crossings/heldInputTable.js';
import type { HeldTaskTable } from '../protocol/crossings/heldTaskTable.js';
import type { FoundTools } from './economy/foundTools.js';
import type { ToolExposure } from './economy/toolExposure.js';
import type { ToolDrift } from '../../shared/status.js';
import type { ActivityRecorder } from '../activity/activityRecorder.js';
import type { AskUser } from './approval/approvalQuestion.js';
import type { ActivityApp } from '../../shared/activity.js';

/** One downstream request forwarded to an upstream and not yet answered. */
export interface InFlight {
  upstream: Upstream;
  handle?: PendingHandle;
  startedAt: number;
  cancelled?: boolean;
}

export interface SessionScope {
  /** One server, or undefined for every server. */
  serverId?: string;
  /** `all`: an aggregate session that lists every tool whatever the hub's `toolExposure` (its client searches by itself). */
  exposure?: 'all';
  /** The ACP session's caller key an http entry carried (bridge/agentHeaders.ts): its calls' approval questions name it. */
  callerKey?: string;
  /** A server's own app view (one server): its app-visible tools, not its model-visible ones (apps/toolAudience.ts). */
  app?: boolean;
}

/** A session as the hub's routers see it (server-to-client requests, notifications, subscriptions). */
export interface HubSession {
  readonly scope: SessionScope;
  readonly clientCapabilities: Record<string, unknown>;
  readonly lastActive: number;
  /** Whether servers' requests to their client may go to it (a 2026-07-28 client: never). */
  readonly takesServerRequests: boolean;
  readonly peer: {
    request(
      method: string,
      params: Record<string, unknown> | undefined,
      opts: RequestOptions,
      beforeSend?: (h: PendingHandle) => void,
    ): Promise<RpcResponse>;
  };
  notify(method: string, params?: Record<string, unknown>, relatedRequestId?: RequestId): void;
  relatedCallOn(u: Upstream): RequestId | undefined;
  callWithUpstreamId(u: Upstream, upstreamId: RequestId): RequestId | undefined;
  hasCallOn(u: Upstream): boolean;
}

/** A session as routeRequest.ts sees it. */
export interface RoutingSession extends HubSession {
  /** The client's own name (`clientInfo.name`), once it said it. */
  clientName?: string;
  /** Its `clientInfo.version`, likewise. */
  clientVersion?: string;
  /** This process's count of sessions when this one began: how the status names it. */
  readonly serial: number;
  readonly single: Upstream | undefined;
  /** The level of a 2025 client's `logging/setLevel` (protocol/rev2026-07-28/logLevels.ts). */
  logLevel?: string;
  /** A 2026-07-28 client (its codec: protocol/sessionCodec.ts). */
  readonly speaks2026: boolean;
  /** What the routers ask of the session's protocol revision. */
  readonly codec: SessionRevision;
  /** An aggregate session's tools found by `search_tools` (economy/foundTools.ts), from its first search. */
  found?: FoundTools;
  /** Tools joined this session's own `tools/list`: its client hears `list_changed`. */
  toolsFound(): void;
  reply(id: RequestId, result: Record<string, unknown>): Promise<void>;
  fail(id: RequestId, error: RpcErrorObject): Promise<void>;
  /** Records `id` as refused by a policy (`error` says why); answer it after (a tool call: policyRefusal.ts). */
  denied(id: RequestId, error: RpcErrorObject): void;
  /** Records and traces `id` as a call of the tool `name` through the meta-tool `via` (`call_tool`). */
  through(id: RequestId, via: string, name: string): void;
  /** Records `id` as a call of a tool with an MCP Apps view; `onResult` gets its whole result (apps/viewTap.ts). */
  recordView(id: RequestId, app: ActivityApp, onResult: (result: Record<string, unknown>) => void): void;
  /** The tool result answering `id` is cut to `u`'s `maxResultBytes` (aggregate sessions: economy/resultCap.ts). */
  capResult(id: RequestId, u: Upstream): void;
  /** Answers a resource request whose URI names a result this session kept; undefined for any other URI. */
  readKept(req: RpcRequest): Promise<void> | undefined;
  /** `mapResult`: the result as the session sees it (a task's id exposed); only task routes pass one. */
  forward(
    req: RpcRequest,
    u: Upstream,
    params: Record<string, unknown>,
    timeoutMs?: number,
    mapResult?: (r: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<void>;
}

/** What the routers see of a session's protocol revision (its codec: protocol/sessionCodec.ts). */
export interface SessionRevision {
  /** 2026-07-28: the session speaks it. */
  readonly speaks2026: boolean;
  /** Whether servers' requests to their client may go to the session (2026-07-28: never). */
  readonly takesServerRequests: boolean;
  /** `tasks/get`, `tasks/result`, `tasks/cancel`, `tasks/list` and `tasks/update` of session `s`. */
  routeTasks(hub: SessionHost, s: RoutingSession, req: RpcRequest): Promise<void>;
}

/** What a held call needs of the hub (heldCall.ts). */
export interface HeldHost {
  readonly held: HeldInputTable;
  routeProgress(
    u: Upstream,
    session: HubSession,
    token: string | number,
    requestId: RequestId,
    touch: () => void,
  ): string;
  holdProgress(
    u: Upstream,
    upstreamToken: string,
    session: HubSession,
    token: string | number,
    requestId: RequestId,
    touch: () => void,
  ): void;
  dropProgress(u: Upstream, upstreamToken: string): void;
}

/** The hub operations a session and the routing of its requests use (implemented by Hub). */
export interface SessionHost extends HeldHost {
  readonly config: ProxyConfig;
  readonly logger: Logger;
  readonly drainOnEofMs?: number;
  /** The cap on one message (`--max-message-bytes`); unset: the default (common/messageLimits.ts). */
  readonly maxMessageBytes?: number;
  /** Where each request of a session is recorded (activity/) and traced (tracing/); absent: neither. */
  readonly recorder?: ActivityRecorder;
  /** Bumped on every change of a list kind; sessions compare it with what they last saw. */
  readonly listVersion: Readonly<Record<ListKind, number>>;
  /** Bumped whenever what a list shows may have changed: what per-list caches key on. */
  readonly listsEpoch: number;
  /** What an aggregate session's `tools/list` gives (economy/toolExposure.ts). */
  readonly exposure: ToolExposure;
  /** The caller key of the agent session this proxy serves, named in its tool calls to a bridge (approval/callerMeta.ts). */
  readonly callerKey?: string;
  /** Who answers for the user when the approval policy says ask (the app, in the bridge); unset: nobody. */
  readonly askUser?: AskUser;
  /** What the bridge keeps for MCP Apps views (apps/appViewBook.ts `AppViewBook`); unset: no call is tapped. */
  readonly appViews?: { tap(s: RoutingSession, req: RpcRequest, u: Upstream, name: string): void };
  /** The aggregate scope's tools with the server of each, names as exposed. */
  toolsByServer(): { serverId: string; tool: Item }[];
  /** Something the status shows changed (a session's found tools, say). */
  readonly onstatus?: () => void;
  upstream(id: string): Upstream | undefined;
  inScope(scope: SessionScope): Upstream[];
  waitReady(scope: SessionScope): Promise<void> | undefined;
  readyWindowLeftMs(scope: SessionScope): number;
  list(kind: ListKind | 'templates', scope: SessionScope): Item[];
  toolAllowed(u: Upstream, name: string): boolean;
  /** The tool `exposed` names in `scope` when tool pinning withholds it (its definition drifted). */
  withheldTool?(exposed: string, scope: SessionScope): { serverId: string; drift: ToolDrift } | undefined;
  resolveTool(exposed: string): NamedItem | undefined;
  resolvePrompt(exposed: string): NamedItem | undefined;
  resourceOwner(uri: string, scope: SessionScope): Upstream | undefined;
  dropProgress(u: Upstream, upstreamToken: string): void;
  /** Subscribes `s` to `uri` on `u` (reference-counted: subscriptionTable.ts). */
  subscribe(u: Upstream, uri: string, s: HubSession, params: Record<string, unknown> | undefined): Promise<RpcResponse>;
  unsubscribe(u: Upstream, uri: string, s: HubSession): Promise<RpcResponse>;
  /** The tasks passing through the hub and the session that owns each (taskTable.ts). */
  readonly tasks: TaskTable<HubSession, Upstream>;
  /** The tasks 2026-07-28 clients got through the proxy (protocol/crossings/heldTaskTable.ts). */
  readonly heldTasks: HeldTaskTable;
  /** A call of `s` on `u` failed with -32042: route the URL elicitations it names back to `s`. */
  urlElicitationsRequired(u: Upstream, s: HubSession, data: unknown): void;
  /** Releases every subscription of a closing session. */
  releaseSubscriptions(s: HubSession): void;
}
