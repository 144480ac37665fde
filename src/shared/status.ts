/**
 * The status contract: one shape spoken by the bridge's `/status` and `/events`, the
 * runtime's status events, the IPC channel and the status panel. Types only.
 * Secrets (env values, header values, tokens) never appear in it.
 */

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
