/**
 * The tool economy line at the top of the panel: what the bridge's aggregate (`/mcp`) hands an
 * agent of its tools (every tool, or tool search), why (the configured `toolExposure`, the
 * merged list's estimated tokens against `toolBudgetTokens`), the total, the servers kept
 * listed, the app's agent sessions with the list that applies to each (agentExposureList.ts),
 * and, per agent session, the tools it loaded by `search_tools`. Built once, updated
 * in place; client names and tool names come from outside and go in as text only.
 */
import type { EconomySessionStatus, ToolEconomyStatus } from '../shared/status.js';
import { el, setHidden, setText } from './dom.js';
import { formatTokens, plural } from './format.js';
import { createAgentExposureList } from './agentExposureList.js';

/** Sessions shown at most; the rest are counted. */
export const MAX_SESSIONS_SHOWN = 8;
/** Tool names shown per session at most; the rest are counted. */
export const MAX_TOOLS_SHOWN = 12;
/** Server ids named after "always listed" at most. */
const MAX_ALWAYS_SHOWN = 6;
/** Up to this many sessions and loaded tools the list starts unfolded; longer, folded. */
const OPEN_SESSIONS = 3;
const OPEN_TOOLS = 16;

export interface EconomySection {
  readonly root: HTMLElement;
  /** Shows `economy` (undefined: a runtime with no bridge status yet, the section hides). */
  update(economy: ToolEconomyStatus | undefined, servers: number): void;
}

/** `Tool search on` / `All tools listed`, and why, in words. */
export function exposureText(e: ToolEconomyStatus): { mode: string; why: string } {
  const mode = e.inForce === 'search' ? 'Tool search on' : 'All tools listed';
  const tokens = `~${formatTokens(e.totalTokens)} tokens`;
  if (e.exposure !== 'auto') return { mode, why: `set to "${e.exposure}" in the config; ${tokens}` };
  const side = e.inForce === 'search' ? 'over' : 'within';
  return { mode, why: `auto: ${tokens} ${side} the ${formatTokens(e.budgetTokens)} budget` };
}

/** `a, b, c +2 more`. */
function bounded(names: string[], max: number): string {
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown} +${names.length - max} more` : shown;
}

/** One session's row: its client and the tools it loaded; `key` is what the tool chips show now. */
interface SessionRow {
  readonly root: HTMLLIElement;
  readonly who: HTMLElement;
  readonly meta: HTMLElement;
  readonly tools: HTMLUListElement;
  key: string;
}

function sessionRow(): SessionRow {
  const root = el('li', 'economy-session');
  const head = el('p', 'economy-session-head');
  const who = el('span', 'economy-client');
  const meta = el('span', 'economy-session-meta');
  head.append(who, meta);
  const tools = el('ul', 'economy-tools');
  root.append(head, tools);
  return { root, key: '', who, meta, tools };
}

export function createEconomySection(): EconomySection {
  const root = el('section', 'economy', undefined, { 'aria-label': 'Tool economy' });
  const line = el('p', 'economy-line');
  const mode = el('strong', 'economy-mode');
  const why = el('span', 'economy-why');
  const total = el('span', 'economy-total');
  const always = el('span', 'economy-always');
  line.append(mode, why, total, always);

  const none = el('p', 'economy-none', 'No agent session has loaded a tool by search yet.');
  const sessions = el('details', 'economy-sessions');
  const summary = el('summary');
  const list = el('ul', 'economy-session-list', undefined, { 'aria-label': 'Tools loaded by search, per session' });
  const more = el('p', 'economy-more');
  sessions.append(summary, list, more);
  // Once the user folds or unfolds the list, the panel never toggles it for them again.
  let touched = false;
  summary.addEventListener('click', () => (touched = true));
  const agents = createAgentExposureList();
  root.append(line, agents.root, none, sessions);
  root.hidden = true;

  const rows = new Map<string, SessionRow>();

  const fillRow = (row: SessionRow, s: EconomySessionStatus) => {
    setText(row.who, s.client ?? 'Unnamed client');
    const where = s.agentPid === undefined ? `session ${s.id}` : `agent proxy ${s.agentPid}, session ${s.id}`;
    setText(row.meta, ` \u00b7 ${where} \u00b7 ${plural(s.loaded.length, 'tool')} loaded`);
    const key = JSON.stringify(s.loaded.slice(0, MAX_TOOLS_SHOWN).concat(String(s.loaded.length)));
    if (key === row.key) return; // unchanged: keep the nodes (and any selection)
    row.key = key;
    const items = s.loaded.slice(0, MAX_TOOLS_SHOWN).map((name) => {
      const li = el('li', 'economy-tool');
      li.append(el('code', undefined, name));
      return li;
    });
    if (s.loaded.length > MAX_TOOLS_SHOWN)
      items.push(el('li', 'economy-tool-more', `+${s.loaded.length - MAX_TOOLS_SHOWN} more`));
    row.tools.replaceChildren(...items);
  };

  const renderSessions = (all: EconomySessionStatus[]) => {
    const shown = all.slice(0, MAX_SESSIONS_SHOWN);
    const seen = new Set<string>();
    let position = 0;
    for (const s of shown) {
      const key = `${s.agentPid ?? ''}:${s.id}`;
      seen.add(key);
      let row = rows.get(key);
      if (!row) {
        row = sessionRow();
        rows.set(key, row);
      }
      fillRow(row, s);
      // Most recently active first; a row moves only when it is out of place.
      const expected = list.children[position];
      if (expected !== row.root) list.insertBefore(row.root, expected ?? null);
      position++;
    }
    for (const [id, row] of rows) {
      if (seen.has(id)) continue;
      row.root.remove();
      rows.delete(id);
    }
    const hidden = all.length - shown.length;
    setHidden(more, hidden === 0);
    setText(more, hidden ? `and ${plural(hidden, 'more session')}` : '');
    const tools = all.reduce((n, s) => n + s.loaded.length, 0);
    setText(summary, `Tools loaded by search: ${plural(all.length, 'agent session')}, ${plural(tools, 'tool')}`);
    if (!touched) sessions.open = all.length <= OPEN_SESSIONS && tools <= OPEN_TOOLS;
  };

  return {
    root,
    update(economy, servers) {
      setHidden(root, !economy);
      if (!economy) return;
      const text = exposureText(economy);
      root.dataset.mode = economy.inForce;
      setText(mode, text.mode);
      setText(why, ` (${text.why})`);
      setText(total, ` \u00b7 ${plural(economy.totalTools, 'tool')} from ${plural(servers, 'server')}`);
      const kept = economy.inForce === 'search' ? economy.alwaysServers : [];
      setHidden(always, kept.length === 0);
      setText(always, kept.length ? ` \u00b7 always listed: ${bounded(kept, MAX_ALWAYS_SHOWN)}` : '');

      agents.update(economy);
      const list = economy.sessions;
      setHidden(none, economy.inForce !== 'search' || list.length > 0);
      setHidden(sessions, list.length === 0);
      renderSessions(list);
    },
  };
}
