/**
 * The bridge's status (one `RuntimeStatus`), and its subscribers (`/events`). Changes from
 * the hub are coalesced so a burst of state changes becomes one event.
 */
import type { Hub } from '../hub/hub.js';
import type {
  AgentSessionStatus,
  EconomySessionStatus,
  RuntimeStatus,
  SecretStoreStatus,
  ServerStatus,
  ToolEconomyStatus,
} from '../../shared/status.js';
import { groupWatcherPid } from '../process/groupRegistry.js';
import { economyStatus } from '../hub/economy/economyStatus.js';
import { MAX_ECONOMY_SESSIONS } from '../hub/economy/loadedSessions.js';

const COALESCE_MS = 25;

export class StatusFeed {
  private bridge: RuntimeStatus['bridge'] = { state: 'starting' };
  private readonly listeners = new Set<(s: RuntimeStatus) => void>();
  private timer?: NodeJS.Timeout;
  private configError?: string;
  private secretStore?: SecretStoreStatus;

  /** What the agents' own proxies report of the tools their sessions loaded (agentLoadedTools.ts), from the first report. */
  agents?: { sessions(): EconomySessionStatus[] };
  /** The app's ACP agent sessions that reached the bridge (agentSessions.ts), from the first. */
  agentSessions?: { list(economy: ToolEconomyStatus): AgentSessionStatus[] };

  /** `authOf`: a server's sign-in state for the panel (src/proxy/oauth), if it has one; `tokensOf`: where its tokens are. */
  constructor(
    private readonly hub: Hub,
    private readonly authOf?: (id: string) => ServerStatus['auth'],
    private readonly tokensOf?: (id: string) => ServerStatus['tokenStore'],
  ) {
    hub.onstatus = () => this.changed();
  }

  current(): RuntimeStatus {
    const servers = this.hub.status();
    if (this.authOf) for (const s of servers) if (s.transport !== 'stdio') s.auth = this.authOf(s.id) ?? s.auth;
    if (this.tokensOf)
      for (const s of servers) {
        const held = s.transport === 'stdio' ? undefined : this.tokensOf(s.id);
        if (held) s.tokenStore = held;
      }
    const { economy, servers: weights } = economyStatus(this.hub);
    for (const s of servers) Object.assign(s, weights.get(s.id));
    if (this.agents) economy.sessions = [...this.agents.sessions(), ...economy.sessions].slice(0, MAX_ECONOMY_SESSIONS);
    if (this.agentSessions) economy.agents = this.agentSessions.list(economy);
    const watcherPid = groupWatcherPid();
    const secretStore = this.secretStore;
    const bridge = {
      ...this.bridge,
      ...(watcherPid !== undefined ? { watcherPid } : {}),
      ...(secretStore ? { secretStore } : {}),
    };
    return { bridge, servers, economy };
  }

  setBridge(b: RuntimeStatus['bridge']): void {
    this.bridge = { ...b, ...(this.configError !== undefined ? { configError: this.configError } : {}) };
    this.changed();
  }

  /** Shown in the bridge's status until a reload succeeds (reload.ts). */
  setConfigError(error: string | undefined): void {
    this.configError = error;
    const { configError: _old, ...rest } = this.bridge;
    this.setBridge(rest);
  }

  /** The secret store's state, once the bridge first needed the store. */
  setSecretStore(state: SecretStoreStatus): void {
    this.secretStore = state;
    this.changed();
  }

  subscribe(cb: (s: RuntimeStatus) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  /** Something the status shows changed (also a sign-in state). */
  changed(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const s = this.current();
      for (const cb of this.listeners) cb(s);
    }, COALESCE_MS);
    this.timer.unref();
  }
}
