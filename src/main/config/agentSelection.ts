/**
 * Which MCP servers each agent gets: the app's setting (`agent-servers.json` in its data
 * folder, `{"agents": {"<agent>": ["<server id>", ...]}}`; an agent not listed gets every
 * server), and the filter applied to a session's server plan before `acpMcpServers`.
 * Written atomically (temp file and rename), like the MCP config.
 */
import { readFileSync } from 'node:fs';
import { writeAtomic } from '../../proxy/index.js';
import type { AgentSelection, AgentSelectionView } from '../../shared/configContract.js';

/**
 * The ACP agents the panel lists by default, by their npm package's short name (docs/agents.md);
 * the settings may name more, and an agent keeps what was stored under its name.
 */
export const KNOWN_AGENTS = ['claude-agent-acp', 'codex-acp', 'gemini', 'copilot', 'opencode', 'qwen-code'] as const;

/** A session's plan (mcpRuntime.mcpServerPlan()). */
export interface ServerPlan {
  bridgeIds: string[];
  sessionEntries: Record<string, unknown>;
}

/** The plan for an agent whose selection is `ids` (undefined: every server). */
export function selectServers(plan: ServerPlan, ids: readonly string[] | undefined): ServerPlan {
  if (ids === undefined) return plan;
  const keep = new Set(ids);
  return {
    bridgeIds: plan.bridgeIds.filter((id) => keep.has(id)),
    sessionEntries: Object.fromEntries(Object.entries(plan.sessionEntries).filter(([id]) => keep.has(id))),
  };
}

function isSelection(v: unknown): v is AgentSelection {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.values(v).every((ids) => Array.isArray(ids) && ids.every((x) => typeof x === 'string'))
  );
}

export class AgentSelectionStore {
  constructor(
    readonly path: string,
    private readonly known: readonly string[] = KNOWN_AGENTS,
  ) {}

  /** The stored selection; a missing or unreadable file is "every agent gets every server". */
  selection(): AgentSelection {
    try {
      const raw = (JSON.parse(readFileSync(this.path, 'utf8')) as { agents?: unknown }).agents;
      return isSelection(raw) ? raw : {};
    } catch {
      return {};
    }
  }

  view(): AgentSelectionView {
    const selection = this.selection();
    return { agents: [...new Set([...this.known, ...Object.keys(selection)])], selection };
  }

  /** The servers `agent` gets (undefined: all). */
  serversFor(agent: string): string[] | undefined {
    return this.selection()[agent];
  }

  /** Stores `ids` for `agent` (null: every server again). */
  set(agent: string, ids: string[] | null): { ok: boolean; error?: string } {
    if (typeof agent !== 'string' || agent === '' || agent.length > 100)
      return { ok: false, error: 'invalid agent name' };
    if (ids !== null && (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string')))
      return { ok: false, error: 'expected a list of server ids' };
    const selection = this.selection();
    if (ids === null) delete selection[agent];
    else selection[agent] = [...new Set(ids)];
    try {
      writeAtomic(this.path, `${JSON.stringify({ agents: selection }, null, 2)}\n`, 0o600);
    } catch (err) {
      return { ok: false, error: `cannot save ${this.path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
    }
    return { ok: true };
  }
}
