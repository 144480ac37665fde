/**
 * The tool economy part of the bridge's status: the exposure configured and in force, the
 * budget, the merged list's weight, each server's tool count and weight, and which tools each
 * aggregate session loaded by search. Weights are computed once per state of the lists
 * (`listsEpoch`); a status read between two changes costs a walk of the sessions.
 */
import type { ToolEconomyStatus } from '../../../shared/status.js';
import type { ProxyConfig } from '../../config/configTypes.js';
import type { Item } from '../../upstream/listCache.js';
import { loadedSessions, type LoadingSession } from './loadedSessions.js';
import type { ToolExposure } from './toolExposure.js';
import { estimateTokens } from './tokenEstimate.js';

/** What the status reads of the hub. */
export interface EconomySource {
  readonly config: Pick<ProxyConfig, 'toolExposure' | 'toolBudgetTokens' | 'exposeAlways'>;
  readonly exposure: ToolExposure;
  readonly listsEpoch: number;
  toolsByServer(): { serverId: string; tool: Item }[];
  readonly sessions: Iterable<LoadingSession>;
}

export interface ServerWeight {
  toolCount: number;
  toolTokens: number;
}

const weights = new WeakMap<EconomySource, { epoch: number; servers: Map<string, ServerWeight> }>();

/** The economy status, and the weight of each ready server by id (for its `toolCount` and `toolTokens`). */
export function economyStatus(hub: EconomySource): { economy: ToolEconomyStatus; servers: Map<string, ServerWeight> } {
  const total = hub.exposure.weigh();
  return {
    economy: {
      exposure: hub.config.toolExposure,
      inForce: hub.exposure.mode(),
      budgetTokens: hub.config.toolBudgetTokens,
      totalTools: total.tools,
      totalTokens: total.tokens,
      alwaysServers: [...hub.config.exposeAlways],
      sessions: loadedSessions(hub.sessions),
    },
    servers: serverWeights(hub),
  };
}

function serverWeights(hub: EconomySource): Map<string, ServerWeight> {
  const known = weights.get(hub);
  if (known?.epoch === hub.listsEpoch) return known.servers;
  const byServer = new Map<string, Item[]>();
  for (const { serverId, tool } of hub.toolsByServer()) {
    const list = byServer.get(serverId) ?? [];
    list.push(tool);
    byServer.set(serverId, list);
  }
  const servers = new Map<string, ServerWeight>();
  for (const [id, tools] of byServer) servers.set(id, { toolCount: tools.length, toolTokens: estimateTokens(tools) });
  weights.set(hub, { epoch: hub.listsEpoch, servers });
  return servers;
}
