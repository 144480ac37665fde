/**
 * The app's agent sessions in the tool economy section (economySection.ts): per session, the
 * agent, how its entry reaches the bridge, and which list of tools applies to it (every tool
 * where the agent searches by itself, each server's own list, or the runtime's mode in force),
 * newest first, at most {@link MAX_AGENTS_SHOWN} rows, an ended one dimmed. Rebuilt on each status
 * (a few short rows); agent names come from outside and go in as text only.
 */
import type { AgentSessionStatus, ToolEconomyStatus } from '../shared/status.js';
import { el, setHidden, setText } from './dom.js';
import { plural } from './format.js';

/** Agent sessions shown at most; the rest are counted. */
export const MAX_AGENTS_SHOWN = 8;

export interface AgentExposureList {
  readonly root: HTMLElement;
  update(economy: ToolEconomyStatus): void;
}

/** Which list applies to a session, in words. */
export function agentExposureText(s: AgentSessionStatus): string {
  if (s.listedBy === 'agent') return 'every tool: the agent searches by itself';
  if (s.listedBy === 'server') return "every tool: one entry per server, each server's own list";
  return s.tools === 'search'
    ? "the runtime's tool search (search_tools, call_tool)"
    : "every tool: the runtime's setting lists them all";
}

export function createAgentExposureList(): AgentExposureList {
  const root = el('div', 'economy-agents');
  const title = el('p', 'economy-agents-title');
  const list = el('ul', 'economy-agent-list', undefined, { 'aria-label': 'Tools each agent session is handed' });
  const more = el('p', 'economy-agents-more');
  root.append(title, list, more);
  root.hidden = true;
  let last = '';

  return {
    root,
    update(economy) {
      const all = economy.agents ?? [];
      const key = JSON.stringify(all.slice(0, MAX_AGENTS_SHOWN));
      setHidden(root, all.length === 0);
      if (key === last) return; // unchanged: keep the nodes (and any selection)
      last = key;
      const open = all.filter((s) => s.connections > 0).length;
      setText(title, `Agent sessions: ${open} connected${all.length > open ? `, ${all.length - open} ended` : ''}`);
      list.replaceChildren(
        ...all.slice(0, MAX_AGENTS_SHOWN).map((s) => {
          const li = el('li', 'economy-agent');
          li.dataset.listedBy = s.listedBy;
          li.dataset.tools = s.tools;
          if (s.connections === 0) li.classList.add('ended');
          const state = s.connections === 0 ? 'ended' : plural(s.connections, 'connection');
          li.append(
            el('span', 'economy-agent-name', s.agent ?? 'Unnamed agent'),
            el('span', 'economy-agent-meta', ` \u00b7 ${s.transport} \u00b7 ${state} \u00b7 `),
            el('span', 'economy-agent-tools', agentExposureText(s)),
          );
          return li;
        }),
      );
      const hidden = all.length - Math.min(all.length, MAX_AGENTS_SHOWN);
      setHidden(more, hidden === 0);
      setText(more, hidden ? `and ${plural(hidden, 'more agent session')}` : '');
    },
  };
}
