/**
 * The app's ACP agent sessions that reached the bridge, for the economy part of `/status`: each
 * session's connections carry its key and what the app chose for it (agentHeaders.ts, read
 * into the route by mcpRoute.ts): the agent's name, its entry's kind, whether it lists every
 * tool. Kept per key while any of its connections is open, then 10 minutes, at most 32 (the
 * ended ones forgotten first). Whoever holds the status (the bridge's status feed) is told of
 * every change. In a file of its own, loaded with the first connection that carries a key.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AgentSessionStatus, ToolEconomyStatus } from '../../shared/status.js';
import type { AgentTag, McpRoute } from './mcpRoute.js';

/** The most agent sessions kept. */
export const MAX_AGENT_SESSIONS = 32;
/** How long an ended session stays listed. */
export const ENDED_KEPT_MS = 10 * 60 * 1000;

interface Entry {
  id: number;
  name?: string;
  transport: 'stdio' | 'http';
  listedBy: AgentSessionStatus['listedBy'];
  open: number;
  startedAt: number;
  endedAt?: number;
}

/** Where the ledger is kept (the bridge's status feed), and whom to tell of a change. */
export interface AgentSessionsHolder {
  agentSessions?: { list(economy: Pick<ToolEconomyStatus, 'inForce'>): AgentSessionStatus[] };
  changed(): void;
}

export class AgentSessions {
  private readonly byKey = new Map<string, Entry>();
  private serial = 0;

  constructor(
    private readonly changed: () => void,
    /** The clock (a test may pass its own). */
    private readonly now: () => number = Date.now,
  ) {}

  /** A connection of `route` opened (its handler connected it): counted until `transport` closes. */
  opened(route: McpRoute & { agent: AgentTag }, transport: Transport): void {
    const entry = this.entry(route);
    entry.open++;
    entry.endedAt = undefined;
    let fired = false;
    const before = transport.onclose;
    transport.onclose = () => {
      if (!fired) {
        fired = true;
        entry.open--;
        if (entry.open === 0) entry.endedAt = this.now();
        this.changed();
      }
      before?.();
    };
    this.changed();
  }

  /** The sessions, newest first; those ended more than {@link ENDED_KEPT_MS} ago are forgotten. */
  list(economy: Pick<ToolEconomyStatus, 'inForce'>): AgentSessionStatus[] {
    const now = this.now();
    for (const [key, e] of this.byKey)
      if (e.endedAt !== undefined && now - e.endedAt > ENDED_KEPT_MS) this.byKey.delete(key);
    return [...this.byKey.values()].reverse().map((e) => ({
      id: e.id,
      ...(e.name === undefined ? {} : { agent: e.name }),
      transport: e.transport,
      listedBy: e.listedBy,
      tools: e.listedBy === 'runtime' ? economy.inForce : 'all',
      connections: e.open,
      startedAt: new Date(e.startedAt).toISOString(),
      ...(e.endedAt === undefined ? {} : { endedAt: new Date(e.endedAt).toISOString() }),
    }));
  }

  /** The entry of the route's session, made on its first connection (the first one tells what it is). */
  private entry(route: McpRoute & { agent: AgentTag }): Entry {
    const { agent } = route;
    const known = this.byKey.get(agent.key);
    if (known) return known;
    if (this.byKey.size >= MAX_AGENT_SESSIONS) this.forgetOne();
    const transport = agent.entry ?? (route.kind === 'stream' ? 'stdio' : 'http');
    const listedBy =
      agent.allTools || route.exposure === 'all'
        ? 'agent'
        : transport === 'http' && route.serverId !== undefined
          ? 'server'
          : 'runtime';
    const entry: Entry = {
      id: ++this.serial,
      ...(agent.name === undefined ? {} : { name: agent.name }),
      transport,
      listedBy,
      open: 0,
      startedAt: this.now(),
    };
    this.byKey.set(agent.key, entry);
    return entry;
  }

  /** Makes room: the oldest ended session, else the oldest. */
  private forgetOne(): void {
    let victim: string | undefined;
    for (const [key, e] of this.byKey)
      if (e.endedAt !== undefined) {
        victim = key;
        break;
      }
    this.byKey.delete(victim ?? this.byKey.keys().next().value!);
  }
}
