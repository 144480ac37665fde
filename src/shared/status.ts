/**
 * The status contract: one shape spoken by the bridge's `/status` and `/events`, the
 * runtime's status events, the IPC channel and the status panel. Types only.
 * Secrets (env values, header values, tokens) never appear in it.
 */
import type { ServerHealth } from './activity.js';

/** `needs-auth`: a remote server waits for the user to sign in (OAuth); lastError names the host. */
export type ServerState = 'starting' | 'ready' | 'failed' | 'restarting' | 'stopped' | 'disabled' | 'needs-auth';
export type ServerTransport = 'stdio' | 'http' | 'sse';

export interface ToolSummary {
  name: string;
  description?: string;
}

/** Where a stdio server's PATH came from (see src/proxy/process/serverLaunch.ts). */
export type PathSource = 'own' | 'entry' | 'handed' | 'login-shell' | 'fallback';

/** How a stdio server was started: the command as resolved and its PATH, home written `~`. */
export interface ServerLaunchInfo {
  command: string;
  path: string;
  pathFrom: PathSource;
}

export interface ServerStatus {
  id: string;
  transport: ServerTransport;
  state: ServerState;
  pid?: number;
  startedAt?: string;
  readyAt?: string;
  restarts: number;
  tools: ToolSummary[];
  lastError?: string;
  stderrTail: string[];
  sessions: number;
  /** Remote servers under a sign-in: `signed-in` shows Sign out, `needs-auth` Sign in. Never a token. */
  auth?: 'signed-in' | 'needs-auth' | 'signing-in';
  /** stdio servers once spawned: which command ran and which PATH it got (secrets masked). */
  launch?: ServerLaunchInfo;
  /** While ready: how many tools an aggregate lists of it (its tool filters applied). */
  toolCount?: number;
  /** While ready: the estimated tokens of those tools' definitions, as an aggregate lists them. */
  toolTokens?: number;
  /** Its calls over the last minutes (src/proxy/activity/), once it had one; absent with the activity log off. */
  health?: ServerHealth;
}

/** `toolExposure` as configured: `auto` lists by search once the merged list passes the budget. */
export type ToolExposureSetting = 'auto' | 'all' | 'search';

/**
 * What an aggregate (the bridge's `/mcp`) hands an agent of its tools (src/proxy/hub/economy/):
 * every tool (`all`), or only the meta-tools `search_tools` and `call_tool`, the tools of the
 * `"expose": "always"` servers and each session's found tools (`search`). Token figures are
 * estimates from the definitions' JSON size (hub/economy/tokenEstimate.ts).
 */
export interface ToolEconomyStatus {
  /** `toolExposure` as configured. */
  exposure: ToolExposureSetting;
  /** What an aggregate session's `tools/list` gives now. */
  inForce: 'all' | 'search';
  /** `toolBudgetTokens`: the weight past which `auto` lists by search. */
  budgetTokens: number;
  /** The tools of every ready server (filters applied): what `all` lists. */
  totalTools: number;
  /** Their estimated tokens, the merged list as a whole. */
  totalTokens: number;
  /** Ids of the servers whose tools stay listed in search mode. */
  alwaysServers: string[];
  /** Aggregate sessions that loaded tools by search, most recently active first, at most 32. */
  sessions: EconomySessionStatus[];
}

/** One aggregate session and the tools it loaded by `search_tools`. */
export interface EconomySessionStatus {
  /** Its number among the sessions of the bridge process. */
  id: number;
  /** The client's own name (`clientInfo.name`), if it gave one. */
  client?: string;
  startedAt: string;
  /** The tools `search_tools` added to its list, as it calls them, oldest first (at most 64 kept). */
  loaded: string[];
}

export type BridgeState = 'starting' | 'ready' | 'stopping' | 'stopped' | 'crashed';

export interface RuntimeStatus {
  bridge: {
    state: BridgeState;
    pid?: number;
    port?: number;
    restarts?: number;
    lastError?: string;
    /** Why the last edit of the config file was not applied (the servers run as before); unset once one is. */
    configError?: string;
    /** The bridge's group watcher (POSIX, once a stdio server started): the runtime waits for it at stop. */
    watcherPid?: number;
  };
  servers: ServerStatus[];
  /** The tool economy of the bridge's aggregate (`/mcp`); absent from a runtime that has no bridge status yet. */
  economy?: ToolEconomyStatus;
}

/**
 * The answer of the bridge's `POST /config/reload`: what it did, by server id, or why the
 * config was not applied (nothing changed then). `invalid`: entries that could not be read,
 * not applied (failed in the status, or kept running on their previous entry).
 */
export type ConfigReloadResult =
  | {
      ok: true;
      added: string[];
      removed: string[];
      restarted: string[];
      unchanged: string[];
      options: string[];
      invalid?: string[];
    }
  | { ok: false; error: string };
