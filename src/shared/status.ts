/**
 * The status contract: one shape spoken by the bridge's `/status` and `/events`, the
 * runtime's status events, the IPC channel and the status panel. Types only.
 * Secrets (env values, header values, tokens) never appear in it.
 */
import type { SandboxStatus } from './sandbox.js';
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
  /**
   * The secrets (`${secret:NAME}` names) its arguments carry: while it runs, other users of
   * this computer can read their values in the process list.
   */
  argvSecrets?: string[];
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
  /** Signed in: where its tokens are kept (the OS keychain, the app's secret store, or a 0600 file). */
  tokenStore?: 'keyring' | 'app' | 'file';
  /** stdio servers once spawned: which command ran and which PATH it got (secrets masked). */
  launch?: ServerLaunchInfo;
  /** While ready: how many tools an aggregate lists of it (its tool filters applied). */
  toolCount?: number;
  /** While ready: the estimated tokens of those tools' definitions, as an aggregate lists them. */
  toolTokens?: number;
  /** Its calls over the last minutes (src/proxy/activity/), once it had one; absent with the activity log off. */
  health?: ServerHealth;
  /** Tool pinning (src/proxy/pinning/): the mode in force and the tools whose definition drifted from their pin. */
  pinning?: PinningStatus;
  /** stdio servers in a sandbox (src/proxy/sandbox/): what they may read, write and reach, and the engine. */
  sandbox?: SandboxStatus;
}

/** `pinning` as configured: `block` withholds a drifted tool until it is accepted, `warn` logs it, `off` passes all. */
export type PinningMode = 'off' | 'warn' | 'block';

/** One server's pins as the status shows them. */
export interface PinningStatus {
  mode: PinningMode;
  /** Tools listed with a definition other than their pin, at most 64. */
  drifts: ToolDrift[];
  /** The pin file could not be read or written (its tools are then treated as drifted, never as pinned). */
  error?: string;
}

/**
 * A tool whose definition is not its pin: `changed` (same name, new definition), `renamed`
 * (a pinned definition under a new name), `unverified` (the pin file could not be read).
 */
export interface ToolDrift {
  /** The tool's name as its server lists it. */
  tool: string;
  kind: 'changed' | 'renamed' | 'unverified';
  /** `renamed`: the name it was pinned under. */
  from?: string;
  /** The fields that differ (`description`, `inputSchema`...), for `changed`. */
  fields: string[];
  /** The hash of the new definition: what an accept names, so a later change is not accepted unseen. */
  hash: string;
  /** Withheld from sessions (`block`), else passed with a warning. */
  withheld: boolean;
  /** The user rejected this definition: it stays withheld. */
  rejected?: boolean;
  oldDescription?: string;
  newDescription?: string;
  /** The rest of each definition (title, schemas, annotations) as indented canonical JSON, at most 16 KiB each. */
  oldDefinition?: string;
  newDefinition?: string;
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
  /**
   * Sessions that loaded tools by search: those of the agents' own proxies (the app's chain, each
   * with `agentPid`), newest report first, then the bridge's own, most recently active first.
   */
  sessions: EconomySessionStatus[];
  /**
   * The app's ACP agent sessions that reached the bridge (their entries carry the session's key),
   * with what each is handed of the tools, newest first, at most 32; absent until the first.
   */
  agents?: AgentSessionStatus[];
}

/**
 * One ACP agent session of the app, and which list of tools applies to it:
 * - `agent`: every tool and no meta-tool, the agent searches by itself (`"toolExposure": "auto"`
 *   for Claude Code, Codex, qwen-code);
 * - `server`: one http entry per server, each listing its own tools as they are;
 * - `runtime`: the runtime's `toolExposure` as in force (`inForce`: search meta-tools, or every
 *   tool), over the bridge's tools (a stdio entry's proxy applies it to the same tools).
 */
export interface AgentSessionStatus {
  /** Its number at the bridge, in the order the sessions first connected. */
  id: number;
  /** The agent's name (`agentInfo.name`), as the app passed it on. */
  agent?: string;
  /** How its entry reaches the bridge: the agent's stdio proxy, or the agent's own http client. */
  transport: 'stdio' | 'http';
  /** Who decides what it lists (see above). */
  listedBy: 'agent' | 'server' | 'runtime';
  /** What its list gives now: every tool, or the search meta-tools. */
  tools: 'all' | 'search';
  /** Its connections open now (one per server of a stdio entry's proxy); 0 once it ended. */
  connections: number;
  startedAt: string;
  /** When its last connection closed; kept listed for 10 minutes after. */
  endedAt?: string;
}

/** One aggregate session and the tools it loaded by `search_tools`. */
export interface EconomySessionStatus {
  /** Its number among the sessions of its process (the bridge, or the agent's proxy of `agentPid`). */
  id: number;
  /** A session of an agent's own proxy (the app's chain), which reported it: that proxy's pid. */
  agentPid?: number;
  /** The client's own name (`clientInfo.name`), if it gave one. */
  client?: string;
  startedAt: string;
  /** The tools `search_tools` added to its list, as it calls them, oldest first (at most 64 kept). */
  loaded: string[];
}

export type BridgeState = 'starting' | 'ready' | 'stopping' | 'stopped' | 'crashed';

/** The secret store: the OS keychain (`keyring`), the app's safeStorage-keyed file (`app`), or `none`, and why not. */
export interface SecretStoreStatus {
  backend: 'keyring' | 'app' | 'none';
  available: boolean;
  /** Why it cannot be used (safe to show; names no value). */
  reason?: string;
}

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
    /** Where `${secret:...}` values are kept, once the bridge first needed the store (a reference, the panel). */
    secretStore?: SecretStoreStatus;
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
