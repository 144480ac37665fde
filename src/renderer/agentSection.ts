/**
 * Which servers each agent gets (the app's settings, passed to the agents' session entries):
 * one group per agent, "All servers" or a checkbox per server. Shown only where the data
 * source has agents (the app); a browser against the bridge has none.
 */
import type { AgentSelectionView } from '../shared/configContract.js';
import { el, uniqueId } from './dom.js';
import type { AgentSelectionApi } from './management.js';

export interface AgentSection {
  readonly root: HTMLElement;
  load(): Promise<void>;
  setServers(ids: string[]): void;
}

function checkbox(label: string, checked: boolean, onChange: (checked: boolean) => void): HTMLElement {
  const id = uniqueId('agent-box');
  const wrap = el('div', 'check');
  const box = el('input', undefined, undefined, { type: 'checkbox', id });
  box.checked = checked;
  box.addEventListener('change', () => onChange(box.checked));
  wrap.append(box, el('label', undefined, label, { for: id }));
  return wrap;
}

export function createAgentSection(api: AgentSelectionApi): AgentSection {
  const root = el('section', 'agents', undefined, { 'aria-label': 'Agents' });
  const list = el('div', 'agent-list');
  const error = el('p', 'form-errors', undefined, { role: 'alert' });
  error.hidden = true;
  root.append(el('h2', undefined, 'Servers per agent'), list, error);
  root.hidden = true;
  let view: AgentSelectionView | undefined;
  let servers: string[] = [];

  const save = (agent: string, ids: string[] | null) =>
    void api.set(agent, ids).then((r) => {
      error.textContent = r.ok ? '' : `Not saved: ${r.error ?? 'unknown error'}`;
      error.hidden = r.ok;
      if (r.ok && view) {
        if (ids === null) delete view.selection[agent];
        else view.selection[agent] = ids;
        render();
      }
    });

  const render = () => {
    if (!view || view.agents.length === 0) {
      root.hidden = true;
      return;
    }
    root.hidden = false;
    list.replaceChildren(
      ...view.agents.map((agent) => {
        const chosen = view!.selection[agent];
        const group = el('fieldset', 'agent');
        group.append(el('legend', undefined, agent));
        group.append(checkbox('All servers', chosen === undefined, (all) => save(agent, all ? null : [...servers])));
        for (const id of servers) {
          group.append(
            checkbox(id, chosen === undefined || chosen.includes(id), (on) => {
              const now = chosen ?? [...servers];
              save(agent, on ? [...new Set([...now, id])] : now.filter((x) => x !== id));
            }),
          );
        }
        return group;
      }),
    );
  };

  return {
    root,
    async load() {
      view = await api.get().catch(() => undefined);
      render();
    },
    setServers(ids) {
      servers = ids;
      render();
    },
  };
}
