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
}

export type BridgeState = 'starting' | 'ready' | 'stopping' | 'stopped' | 'crashed';

export interface RuntimeStatus {
  bridge: { state: BridgeState; pid?: number; port?: number; restarts?: number; lastError?: string };
  servers: ServerStatus[];
}
