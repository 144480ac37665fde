/**
 * RuntimeStatusBook: what McpRuntime (mcpRuntime.ts) knows of the bridge and its servers, and
 * the `status` and `progress` events it sends from them: a `status` event on every bridge
 * change, a `progress` event only when the settled/total count moved.
 */
import type { RuntimeStatus, ServerStatus, ToolEconomyStatus } from '../../shared/status.js';
import { startupProgress, type RuntimeListeners } from './runtimeTypes.js';

export class RuntimeStatusBook {
  bridge: RuntimeStatus['bridge'] = { state: 'stopped', restarts: 0 };
  servers: ServerStatus[] = [];
  /** The tool economy of the bridge's aggregate, as its last status gave it; none while no bridge runs. */
  economy: ToolEconomyStatus | undefined;
  /** Why the last edit of the config file was not applied; shown with the bridge until one is. */
  private configError: string | undefined;
  private lastProgress = '';

  constructor(private readonly listeners: RuntimeListeners) {}

  /** The current status (a copy). */
  status(): RuntimeStatus {
    const bridge =
      this.configError === undefined ? { ...this.bridge } : { ...this.bridge, configError: this.configError };
    const servers = this.servers.map((s) => ({ ...s }));
    return this.economy === undefined
      ? { bridge, servers }
      : { bridge, servers, economy: structuredClone(this.economy) };
  }

  /** Sets (or clears) the config problem and sends a `status` event when it changed. */
  setConfigError(error: string | undefined): void {
    if (error === this.configError) return;
    this.configError = error;
    this.listeners.emit('status', this.status());
  }

  /** Replaces the bridge's status (undefined fields dropped) and sends a `status` event. */
  setBridge(b: RuntimeStatus['bridge']): void {
    this.bridge = Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)) as RuntimeStatus['bridge'];
    this.listeners.emit('status', this.status());
  }

  /** A new bridge run: its first progress is sent whatever the last run's was. */
  resetProgress(): void {
    this.lastProgress = '';
  }

  /** Sends a `progress` event when the settled/total count changed. */
  emitProgress(): void {
    const p = startupProgress(this.servers);
    const key = `${p.settled}/${p.total}`;
    if (key === this.lastProgress) return;
    this.lastProgress = key;
    this.listeners.emit('progress', p);
  }

  /** The servers are gone (or going): no pid, and `state` unless disabled; the aggregate's sessions went with the bridge. */
  markServers(state: 'restarting' | 'stopped'): void {
    this.economy = undefined;
    this.servers = this.servers.map(({ pid: _pid, ...s }) => ({
      ...s,
      state: s.state === 'disabled' ? 'disabled' : state,
    }));
  }
}
