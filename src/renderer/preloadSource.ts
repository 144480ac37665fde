/** The status source inside Electron: a thin wrapper over the preload's `window.mcpRuntime`. */
import type { McpRuntimeApi, RestartResult, SignInResult } from '../shared/ipcContract.js';
import type { RuntimeStatus } from '../shared/status.js';
import type { StatusSource } from './dataSource.js';

/** Wraps the preload API as a {@link StatusSource}. */
export class PreloadStatusSource implements StatusSource {
  constructor(private readonly api: McpRuntimeApi) {}

  getStatus(): Promise<RuntimeStatus> {
    return this.api.getStatus();
  }

  onStatus(cb: (s: RuntimeStatus) => void): () => void {
    return this.api.onStatus(cb);
  }

  restart(id: string): Promise<RestartResult> {
    return settled(() => this.api.restart(id));
  }

  signIn(id: string): Promise<SignInResult> {
    return settled(() => this.api.signIn(id));
  }

  signOut(id: string): Promise<RestartResult> {
    return settled(() => this.api.signOut(id));
  }
}

/**
 * An IPC handler that throws reaches us as a rejection carrying only its message; the panel
 * wants the same `{ ok, error }` shape either way.
 */
async function settled<T extends RestartResult>(call: () => Promise<T>): Promise<T | RestartResult> {
  try {
    return await call();
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** The preload API if this page runs in a window whose preload exposed it. */
export function findPreloadApi(win: Window): McpRuntimeApi | undefined {
  const api = (win as Window & { mcpRuntime?: McpRuntimeApi }).mcpRuntime;
  return api && typeof api.getStatus === 'function' && typeof api.onStatus === 'function' ? api : undefined;
}
