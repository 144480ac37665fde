/**
 * What the panel needs to manage servers (read and change the config, see a server's log,
 * try its tools, choose what each agent gets), and its implementation over the bridge's HTTP
 * routes (configRoutes.ts on the bridge). The Electron preload offers the same through IPC
 * (preloadSource.ts). Every method resolves; failures come back as `{ ok: false, error }`.
 */
import type {
  AgentSelectionView,
  ConfigChange,
  ConfigChangeResult,
  ConfigView,
  ImportPreview,
  ServerLog,
  ToolCallResult,
  ToolList,
} from '../shared/configContract.js';

/** Per-agent server selection; only the app has agents. */
export interface AgentSelectionApi {
  get(): Promise<AgentSelectionView>;
  /** `ids` null: the agent gets every server again. */
  set(agent: string, ids: string[] | null): Promise<{ ok: boolean; error?: string }>;
}

export interface ManagementApi {
  /** `readOnly`: the runtime has no config file to edit (a bridge given inline JSON); not an error to show. */
  getConfig(): Promise<{ ok: true; config: ConfigView } | { ok: false; error: string; readOnly?: boolean }>;
  change(change: ConfigChange): Promise<ConfigChangeResult>;
  previewImport(text: string): Promise<ImportPreview>;
  serverLog(id: string, limit?: number): Promise<ServerLog>;
  listTools(id: string): Promise<ToolList>;
  callTool(id: string, name: string, args: Record<string, unknown>): Promise<ToolCallResult>;
  agents?: AgentSelectionApi;
  /** The registry and bundle installs (the Browse view); absent where the runtime has none. */
  install?: InstallApi;
}

import { HttpInstall, type InstallApi } from './installApi.js';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** {@link ManagementApi} over the bridge's routes: JSON bodies, the bearer token, same origin. */
export class HttpManagement implements ManagementApi {
  readonly install: InstallApi;
  constructor(
    private readonly baseUrl: string,
    private readonly token: string | undefined,
  ) {
    this.install = new HttpInstall(baseUrl, token);
  }

  private async call<T extends { ok?: boolean; error?: string }>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<T> {
    const headers: Record<string, string> = this.token ? { Authorization: `Bearer ${this.token}` } : {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(this.baseUrl.replace(/\/+$/, '') + path, {
        method,
        headers,
        cache: 'no-store',
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      return { ok: false, error: `The bridge could not be reached (${message(err)}).` } as T;
    }
    const json = (await res.json().catch(() => undefined)) as (T & { error?: string }) | undefined;
    if (!json) return { ok: false, error: `The bridge answered HTTP ${res.status}.` } as T;
    if (!res.ok && json.ok === undefined) return { ...json, ok: false, error: json.error ?? `HTTP ${res.status}` };
    return json;
  }

  async getConfig(): Promise<{ ok: true; config: ConfigView } | { ok: false; error: string; readOnly?: boolean }> {
    const r = await this.call<ConfigView & { ok?: boolean; error?: string; editable?: boolean }>('GET', '/config');
    if (r.editable === false) return { ok: false, error: r.error ?? 'no config file', readOnly: true };
    if (r.ok === false || !Array.isArray(r.servers)) return { ok: false, error: r.error ?? 'no config' };
    return { ok: true, config: r };
  }

  change(c: ConfigChange): Promise<ConfigChangeResult> {
    const id = 'id' in c ? encodeURIComponent(c.id) : '';
    const version = 'version' in c && c.version !== undefined ? { version: c.version } : {};
    switch (c.op) {
      case 'add':
        return this.call('POST', '/config/servers', { id: c.id, entry: c.entry });
      case 'update':
        return this.call('PUT', `/config/servers/${id}`, {
          entry: c.entry,
          ...(c.newId ? { newId: c.newId } : {}),
          ...version,
        });
      case 'remove':
        return this.call('DELETE', `/config/servers/${id}`, version);
      case 'enable':
        return this.call('POST', `/config/servers/${id}/enabled`, { enabled: c.enabled, ...version });
      case 'tool':
        return this.call('POST', `/config/servers/${id}/tools`, { tool: c.tool, enabled: c.enabled, ...version });
      case 'import':
        return this.call('POST', '/config/import', {
          text: c.text,
          ...(c.secrets ? { secrets: c.secrets } : {}),
          ...(c.allowSecretRefs ? { allowSecretRefs: c.allowSecretRefs } : {}),
        });
    }
  }

  async previewImport(text: string): Promise<ImportPreview> {
    const r = await this.call<ImportPreview>('POST', '/config/import/preview', { text });
    return {
      ok: r.ok ?? false,
      add: r.add ?? [],
      skip: r.skip ?? [],
      ...(r.format ? { format: r.format } : {}),
      ...(r.error ? { error: r.error } : {}),
      ...(r.secretStore ? { secretStore: r.secretStore } : {}),
    };
  }

  async serverLog(id: string, limit = 500): Promise<ServerLog> {
    const r = await this.call<ServerLog>('GET', `/servers/${encodeURIComponent(id)}/log?limit=${limit}`);
    return {
      ok: r.ok ?? false,
      lines: r.lines ?? [],
      truncated: r.truncated ?? false,
      ...(r.error ? { error: r.error } : {}),
    };
  }

  async listTools(id: string): Promise<ToolList> {
    const r = await this.call<ToolList>('GET', `/servers/${encodeURIComponent(id)}/tools`);
    return { ok: r.ok ?? false, tools: r.tools ?? [], ...(r.error ? { error: r.error } : {}) };
  }

  callTool(id: string, name: string, args: Record<string, unknown>): Promise<ToolCallResult> {
    return this.call('POST', `/servers/${encodeURIComponent(id)}/tools/call`, { name, arguments: args });
  }
}
