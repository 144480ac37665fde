/**
 * Where the status panel gets its data. Two implementations: the Electron preload API
 * (preloadSource.ts) and the bridge's HTTP `/status` + `/events` (httpSource.ts).
 */
import type { RuntimeStatus } from '../shared/status.js';
import type { RestartResult, SignInResult } from '../shared/ipcContract.js';
import type { ManagementApi } from './management.js';
import type { ActivityFeed } from './activityFeed.js';

/** Link state between the panel and the runtime, for sources that have one. */
export type ConnectionState = 'connected' | 'reconnecting' | 'down';

/** The panel's view of the runtime. */
export interface StatusSource {
  /** The current status, fetched once. */
  getStatus(): Promise<RuntimeStatus>;
  /** Live updates; returns the unsubscribe function. */
  onStatus(cb: (s: RuntimeStatus) => void): () => void;
  /** Asks the runtime to restart one server. Never rejects for expected failures. */
  restart(id: string): Promise<RestartResult>;
  /** Config management (add, edit, logs, Test); absent: a read-only panel. */
  readonly management?: ManagementApi;
  /** Starts a server's sign-in (the browser opens); never rejects for expected failures. */
  signIn?(id: string): Promise<SignInResult>;
  signOut?(id: string): Promise<RestartResult>;
  /** Accepts or rejects a tool's drifted definition (tool pinning); never rejects for expected failures. */
  decidePin?(id: string, tool: string, decision: 'accept' | 'reject', hash: string): Promise<RestartResult>;
  /** The activity log (the Activity view); absent: the runtime offers none. */
  readonly activity?: ActivityFeed;
  /** Link state changes (HTTP only: the preload link cannot drop). Returns the unsubscribe function. */
  onConnection?(cb: (state: ConnectionState, detail?: string) => void): () => void;
}
