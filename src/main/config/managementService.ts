/**
 * The app's side of the panel's server management, behind the IPC handlers: the config file
 * edited in place with the proxy's ConfigStore (the same validation, masking and atomic write
 * as the bridge's `/config` routes, with their secret handling: secret references moved to
 * their entries' own names at each read and after each change, imports that read stored
 * secrets only with the user's yes; the runtime's config watcher applies the file), and a
 * server's log, tools and Test calls asked of the running bridge's routes (its token, its
 * own Origin, JSON bodies), and the per-agent selection. Every method resolves.
 */
import {
  ConfigError,
  ConfigStore,
  changeFrom,
  keepDraftSecrets,
  keepImportSecrets,
  moveSecretNames,
  NoSecretStore,
  serverLog,
  type SecretStore,
} from '../../proxy/index.js';
import type { ActivityResult, ConfigGetResult, ManagementIpcApi } from '../../shared/ipcContract.js';
import type { ActivityQuery } from '../../shared/activity.js';
import type { SecretStoreStatus } from '../../shared/status.js';
import type {
  AgentSelectionView,
  ConfigChange,
  ConfigChangeResult,
  ImportPreview,
  ServerLog,
  ToolCallResult,
  ToolList,
} from '../../shared/configContract.js';
import type { AgentSelectionStore } from './agentSelection.js';
import { askBridge } from '../runtime/bridgeAsk.js';

export interface ManagementServiceOptions {
  configFile: string;
  /** What `${VAR}`s are checked against (the bridge inherits this process's environment). */
  env?: NodeJS.ProcessEnv;
  /** The running bridge; rejects when it is not ready. */
  bridge: () => Promise<{ url: string; token: string }>;
  agents?: AgentSelectionStore;
  /**
   * The agents' stdio proxies' log file (`proxyLogFilePath()`, the one the log tail follows):
   * its lines about a server are added to the log view, and are all there is for a
   * `persistent: false` server, which runs in the sessions, not in the bridge.
   */
  proxyLogFile?: string;
  /** Per bridge request (default 70 s: a Test call is bounded at 60 s by the bridge). */
  timeoutMs?: number;
  /** Where the form's "keep in the secret store" puts values (appSecrets.ts); absent: the panel is told there is none. */
  secrets?: SecretStore;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class ManagementService implements ManagementIpcApi {
  private readonly store: ConfigStore;

  constructor(private readonly opts: ManagementServiceOptions) {
    this.store = new ConfigStore(opts.configFile, opts.env ?? process.env);
  }

  async getConfig(): Promise<ConfigGetResult> {
    try {
      const secretStore = await this.getStoreState();
      const moved = secretStore.available
        ? await moveSecretNames(this.store, this.secretStore())
        : { renamed: [], notes: [] };
      const view = this.store.view();
      if (moved.notes.length) view.warnings = [...(view.warnings ?? []), ...moved.notes];
      return { ok: true, config: { ...view, secretStore } };
    } catch (err) {
      return { ok: false, error: err instanceof ConfigError ? err.issues.join('; ') : message(err) };
    }
  }

  async changeConfig(change: ConfigChange): Promise<ConfigChangeResult> {
    let checked = changeFrom(change);
    if (!checked) return { ok: false, error: 'malformed change' };
    if ((checked.op === 'add' || checked.op === 'update') && checked.entry.secrets !== undefined) {
      const kept = await keepDraftSecrets(checked, this.secretStore());
      if (!kept.ok) return { ok: false, error: kept.error };
      checked = kept.change;
    }
    if (checked.op === 'import' && checked.secrets === 'store') {
      const kept = await keepImportSecrets(checked, this.secretStore(), (text) => this.store.planImport(text));
      if (!kept.ok) return { ok: false, error: kept.error };
      checked = kept.change;
    }
    const applied = this.store.apply(checked);
    const { status: _status, ...r } = applied as typeof applied & { status?: number };
    void _status;
    if (r.ok) {
      // A renamed entry's secrets follow it, before anything else can store under its old id's names.
      const moved = await moveSecretNames(this.store, this.secretStore());
      if (moved.renamed.length) r.config = this.store.view();
      if (moved.notes.length && r.config) r.config.warnings = [...(r.config.warnings ?? []), ...moved.notes];
    }
    return r;
  }

  private secretStore(): SecretStore {
    return this.opts.secrets ?? new NoSecretStore('this app keeps no secret store');
  }

  /** What the panel is told of the store. */
  private async getStoreState(): Promise<SecretStoreStatus> {
    const store = this.secretStore();
    const a = await store.available();
    return a.ok
      ? { backend: store.backend, available: true }
      : { backend: store.backend, available: false, reason: a.reason };
  }

  async previewImport(text: string): Promise<ImportPreview> {
    if (typeof text !== 'string') return { ok: false, add: [], skip: [], error: 'expected the snippet text' };
    try {
      const preview = this.store.previewImport(text);
      if (preview.add.some((a) => a.secrets)) preview.secretStore = await this.getStoreState();
      return preview;
    } catch (err) {
      return { ok: false, add: [], skip: [], error: err instanceof ConfigError ? err.issues.join('; ') : message(err) };
    }
  }

  async serverLog(id: string, limit = 500): Promise<ServerLog> {
    const n = Number.isFinite(limit) ? Math.max(1, Math.floor(limit)) : 500;
    const fromBridge = await this.bridgeCall<ServerLog>(
      'GET',
      `/servers/${encodeURIComponent(id)}/log?limit=${n}`,
      undefined,
      (error) => ({
        ok: false,
        error,
        lines: [],
        truncated: false,
      }),
    );
    if (!this.opts.proxyLogFile) return fromBridge;
    // The sessions' proxies' lines about it first, then the bridge's (the proxies mask their own lines).
    const fromSessions = serverLog(id, [], this.opts.proxyLogFile, n);
    if (fromSessions.lines.length === 0) return fromBridge;
    const lines = [...fromSessions.lines, ...fromBridge.lines];
    return {
      ok: true,
      lines: lines.slice(-n),
      truncated: fromBridge.truncated || fromSessions.truncated || lines.length > n,
    };
  }

  activity(query: ActivityQuery = {}): Promise<ActivityResult> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
    const qs = params.size > 0 ? `?${params}` : '';
    return this.bridgeCall<ActivityResult>('GET', `/activity${qs}`, undefined, (error) => ({ ok: false, error })).then(
      (r) => ('records' in r ? { ...r, ok: true } : r),
    );
  }

  listTools(id: string): Promise<ToolList> {
    return this.bridgeCall('GET', `/servers/${encodeURIComponent(id)}/tools`, undefined, (error) => ({
      ok: false,
      error,
      tools: [],
    }));
  }

  callTool(id: string, name: string, args: Record<string, unknown>): Promise<ToolCallResult> {
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return Promise.resolve({ ok: false, error: 'the arguments must be an object' });
    return this.bridgeCall(
      'POST',
      `/servers/${encodeURIComponent(id)}/tools/call`,
      { name, arguments: args },
      (error) => ({ ok: false, error }),
    );
  }

  async getAgents(): Promise<AgentSelectionView> {
    return this.opts.agents?.view() ?? { agents: [], selection: {} };
  }

  async setAgentServers(agent: string, ids: string[] | null): Promise<{ ok: boolean; error?: string }> {
    return this.opts.agents ? this.opts.agents.set(agent, ids) : { ok: false, error: 'no agents in this app' };
  }

  private async bridgeCall<T>(method: string, path: string, body: unknown, failed: (error: string) => T): Promise<T> {
    const r = await askBridge(this.opts.bridge, method, path, body, this.opts.timeoutMs ?? 70_000);
    if (!r.ok) return failed(r.error);
    const json = r.json as (T & { error?: string }) | undefined;
    if (!json) return failed(`the bridge answered HTTP ${r.status}`);
    if (r.status < 200 || r.status > 299) return failed(json.error ?? `the bridge answered HTTP ${r.status}`);
    return json;
  }
}
