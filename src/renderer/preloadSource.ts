/** The status source inside Electron: a thin wrapper over the preload's `window.mcpRuntime`. */
import type { McpRuntimeApi, RestartResult, SignInResult } from '../shared/ipcContract.js';
import type { RuntimeStatus } from '../shared/status.js';
import type { StatusSource } from './dataSource.js';
import type { ManagementApi } from './management.js';
import type { ActivityFeed } from './activityFeed.js';
import { PolledActivityFeed } from './polledActivity.js';
import { hasInstall, PreloadInstall } from './preloadInstall.js';
import { hasViews, preloadAppView } from './mcpApp/preloadAppViews.js';

/** Wraps the preload API as a {@link StatusSource}. */
export class PreloadStatusSource implements StatusSource {
  readonly management?: ManagementApi;
  readonly activity?: ActivityFeed;

  constructor(private readonly api: McpRuntimeApi) {
    this.management = managementOf(api);
    const page = api.activity;
    if (typeof page === 'function') {
      const feed = new PolledActivityFeed((q) => safe(page.call(api, q), (error) => ({ ok: false as const, error })));
      if (hasViews(api)) {
        feed.openView = (key) => preloadAppView(api, key);
        feed.acceptView = (key, hash) => safe(api.appViewAccept(key, hash), (error) => ({ ok: false, error }));
      }
      this.activity = feed;
    }
  }

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

  decidePin(id: string, tool: string, decision: 'accept' | 'reject', hash: string): Promise<RestartResult> {
    const api = this.api;
    if (!api.decidePin) return Promise.resolve({ ok: false, error: 'this app does not take pin decisions' });
    return settled(() => api.decidePin!(id, tool, decision, hash));
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

/** A rejected IPC call as the `{ ok: false, error }` every management answer uses. */
function safe<T>(p: Promise<T> | undefined, fallback: (error: string) => T): Promise<T> {
  if (!p) return Promise.resolve(fallback('not supported by this app'));
  return p.catch((err: unknown) => fallback(err instanceof Error ? err.message : String(err)));
}

/** The preload's management methods as a {@link ManagementApi}, when it has them. */
function managementOf(api: McpRuntimeApi): ManagementApi | undefined {
  if (typeof api.getConfig !== 'function' || typeof api.changeConfig !== 'function') return undefined;
  const m: ManagementApi = {
    getConfig: () => safe(api.getConfig?.(), (error) => ({ ok: false as const, error })),
    change: (c) => safe(api.changeConfig?.(c), (error) => ({ ok: false, error })),
    previewImport: (t) => safe(api.previewImport?.(t), (error) => ({ ok: false, add: [], skip: [], error })),
    serverLog: (id, limit) =>
      safe(api.serverLog?.(id, limit), (error) => ({ ok: false, error, lines: [], truncated: false })),
    listTools: (id) => safe(api.listTools?.(id), (error) => ({ ok: false, error, tools: [] })),
    callTool: (id, name, args) => safe(api.callTool?.(id, name, args), (error) => ({ ok: false, error })),
  };
  if (hasInstall(api)) m.install = new PreloadInstall(api);
  if (typeof api.getAgents === 'function' && typeof api.setAgentServers === 'function') {
    m.agents = {
      get: () => safe(api.getAgents?.(), () => ({ agents: [], selection: {} })),
      set: (agent, ids) => safe(api.setAgentServers?.(agent, ids), (error) => ({ ok: false, error })),
    };
  }
  return m;
}
