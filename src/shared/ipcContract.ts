/**
 * The IPC contract between Electron main, the preload script and the status panel.
 * Types and channel-name constants only: no runtime imports, so every layer
 * (main, preload, renderer) can import it.
 */
import type { RuntimeStatus } from './status.js';

/** Every channel this project uses starts with this prefix; the preload rejects others. */
export const IPC_CHANNEL_PREFIX = 'mcp:';

/** One channel per message. `status` is main -> renderer; the others are invoke/handle. */
export const IPC_CHANNELS = {
  getStatus: 'mcp:status:get',
  status: 'mcp:status:changed',
  restart: 'mcp:server:restart',
  signIn: 'mcp:server:sign-in',
  signOut: 'mcp:server:sign-out',
} as const;

/** Answer to a restart request. Expected failures come back as `{ ok: false, error }`, not as a rejection. */
export interface RestartResult {
  ok: boolean;
  error?: string;
}

/** Answer to a sign-in request: the authorization page, once the browser was sent to it. */
export interface SignInResult extends RestartResult {
  url?: string;
}

/**
 * What the preload exposes as `window.mcpRuntime` (via `contextBridge.exposeInMainWorld`).
 * One method per IPC message; listeners receive only the payload, never the IPC event.
 */
export interface McpRuntimeApi {
  getStatus(): Promise<RuntimeStatus>;
  /** Subscribes to status changes; returns the unsubscribe function. */
  onStatus(cb: (status: RuntimeStatus) => void): () => void;
  restart(id: string): Promise<RestartResult>;
  /** Starts the server's sign-in in the system browser (OAuth). */
  signIn(id: string): Promise<SignInResult>;
  /** Forgets the server's tokens. */
  signOut(id: string): Promise<RestartResult>;
}

/** The name under which the preload exposes {@link McpRuntimeApi}. */
export const MCP_RUNTIME_GLOBAL = 'mcpRuntime';
