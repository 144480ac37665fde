/**
 * What the runtime knows of the ACP agents in use, recognised by what they say at `initialize`
 * (`agentInfo.name`, Claude's `_meta.claudeCode`): whether an agent takes a stdio MCP entry, and
 * whether it keeps MCP tools behind a search of its own. An agent it does not know gets the
 * ACP defaults (stdio, the user's `toolExposure` as it is). What each agent was seen to send:
 * docs/agents.md; why the entry is chosen this way: docs/decisions/0046-entry-per-agent.md.
 */
import type { AgentCapabilities, Implementation } from '@agentclientprotocol/sdk';

/** The agents the runtime knows by name. */
export type KnownAgent = 'claude' | 'codex' | 'gemini' | 'opencode' | 'copilot' | 'qwen';

export interface AgentProfile {
  /** Which agent; undefined for one the runtime does not know. */
  agent?: KnownAgent;
  /** It drops stdio entries without a word (Copilot): it gets the bridge over http. */
  refusesStdio: boolean;
  /**
   * It keeps MCP tools from the model behind a search of its own (Claude Code's ToolSearch,
   * Codex's tool search and code mode, qwen-code's tool_search): under `"toolExposure": "auto"`
   * it gets every tool and none of the runtime's meta-tools, so there is one search, not two.
   */
  searchesTools: boolean;
}

/** `agentInfo.name` as each agent sends it (docs/agents.md). */
const BY_NAME: readonly (readonly [RegExp, KnownAgent])[] = [
  [/^@(agentclientprotocol|zed-industries)\/claude-(agent|code)-acp$/, 'claude'],
  [/^(@(agentclientprotocol|zed-industries)\/)?codex-acp$/, 'codex'],
  [/^gemini-cli$/, 'gemini'],
  [/^opencode$/i, 'opencode'],
  [/^copilot$/i, 'copilot'],
  [/^qwen-code$/, 'qwen'],
];

const REFUSES_STDIO: ReadonlySet<KnownAgent> = new Set(['copilot']);
const SEARCHES_TOOLS: ReadonlySet<KnownAgent> = new Set(['claude', 'codex', 'qwen']);

/** The profile of the agent that answered `initialize` with `agentInfo` and `agentCapabilities`. */
export function agentProfile(
  agentInfo: Implementation | null | undefined,
  agentCapabilities?: AgentCapabilities | null,
): AgentProfile {
  const name = typeof agentInfo?.name === 'string' ? agentInfo.name.trim() : '';
  let agent = BY_NAME.find(([re]) => re.test(name))?.[1];
  // Claude's adapters say so in their capabilities even where their name is another.
  if (!agent && agentCapabilities?._meta?.claudeCode !== undefined) agent = 'claude';
  return {
    ...(agent ? { agent } : {}),
    refusesStdio: agent !== undefined && REFUSES_STDIO.has(agent),
    searchesTools: agent !== undefined && SEARCHES_TOOLS.has(agent),
  };
}

/**
 * Variables every agent is started with (unless the app's environment sets them): they make an
 * agent known to prompt before its MCP servers are connected wait for them. qwen-code discovers
 * MCP servers in the background and answers `session/new` first; this one makes it discover
 * them before. An agent ignores another's variables.
 */
export const AGENT_START_ENV: Readonly<Record<string, string>> = { QWEN_CODE_LEGACY_MCP_BLOCKING: '1' };
