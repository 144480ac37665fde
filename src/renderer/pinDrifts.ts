/**
 * The drifted tools of one server's card (tool pinning): for each, what changed, the old and
 * new description and the old and new rest of the definition as line diffs, and the buttons
 * "Accept change" and "Reject change". Every server string goes in through textContent (dom.ts).
 */
import type { PinningStatus, ToolDrift } from '../shared/status.js';
import { el, setHidden, setText } from './dom.js';
import { lineDiff } from './lineDiff.js';

export type PinDecision = 'accept' | 'reject';

export interface DriftSection {
  readonly root: HTMLElement;
  update(pinning: PinningStatus | undefined): void;
  /** A decision on `tool` is in flight, or finished with its error. */
  setPending(tool: string, pending: boolean, error?: string): void;
}

const SIGN = { same: '  ', removed: '- ', added: '+ ' } as const;

function diffBlock(label: string, before: string, after: string): HTMLElement {
  // An unchanged part is folded: what changed is what the user has to read.
  const same = before === after;
  const wrap = same ? el('details', 'drift-diff') : el('div', 'drift-diff');
  wrap.append(same ? el('summary', undefined, `${label} (unchanged)`) : el('h4', undefined, label));
  const pre = el('pre', 'drift-lines', undefined, { tabindex: '0', 'aria-label': `${label}: old and new` });
  for (const line of lineDiff(before, after))
    pre.append(el('span', `diff-${line.kind}`, `${SIGN[line.kind]}${line.text}\n`));
  wrap.append(pre);
  return wrap;
}

function headline(d: ToolDrift): string {
  if (d.kind === 'renamed') return `Tool ${d.tool} is the pinned tool ${d.from ?? ''} renamed`;
  if (d.kind === 'unverified') return `Tool ${d.tool} cannot be checked: the pin file is unreadable`;
  return `Tool ${d.tool} changed: ${d.fields.join(', ') || 'definition'}`;
}

export function createDriftSection(
  serverId: string,
  onDecision: (tool: string, decision: PinDecision, hash: string) => void,
): DriftSection {
  const root = el('section', 'drifts', undefined, { 'aria-label': `Changed tools of ${serverId}` });
  root.hidden = true;
  const intro = el('p', 'drift-intro');
  const errorLine = el('p', 'drift-error', undefined, { role: 'alert' });
  errorLine.hidden = true;
  const list = el('ul', 'drift-list');
  root.append(intro, errorLine, list);
  let key = '';
  const rows = new Map<string, { accept: HTMLButtonElement; reject: HTMLButtonElement; error: HTMLElement }>();

  return {
    root,
    update(pinning) {
      const drifts = pinning?.drifts ?? [];
      setHidden(root, drifts.length === 0 && !pinning?.error);
      setHidden(errorLine, !pinning?.error);
      setText(errorLine, pinning?.error ? `Pins: ${pinning.error}` : '');
      const withheld = drifts.some((d) => d.withheld);
      setText(
        intro,
        withheld
          ? 'These tools changed since you first saw them and are withheld from every agent until you accept the change.'
          : 'These tools changed since you first saw them (pinning: warn, so agents still see them).',
      );
      const next = JSON.stringify(drifts);
      if (next === key) return; // unchanged: keep the DOM, its focus and selection
      key = next;
      rows.clear();
      list.replaceChildren(
        ...drifts.map((d) => {
          const li = el('li', 'drift');
          li.dataset.tool = d.tool;
          li.append(el('h3', 'drift-title', headline(d)));
          if (d.rejected) li.append(el('p', 'drift-note', 'You rejected this change: the tool stays withheld.'));
          if (d.oldDescription !== undefined || d.newDescription !== undefined)
            li.append(diffBlock('Description', d.oldDescription ?? '', d.newDescription ?? ''));
          li.append(diffBlock('Schema and annotations', d.oldDefinition ?? '', d.newDefinition ?? ''));
          const buttons = el('div', 'drift-buttons');
          // Named by their text alone: the card is a region named by the server, the item by its title.
          const accept = el('button', 'drift-accept', 'Accept change', { type: 'button' });
          const reject = el('button', 'drift-reject', 'Reject change', { type: 'button' });
          accept.addEventListener('click', () => {
            if (accept.getAttribute('aria-disabled') !== 'true') onDecision(d.tool, 'accept', d.hash);
          });
          reject.addEventListener('click', () => {
            if (reject.getAttribute('aria-disabled') !== 'true') onDecision(d.tool, 'reject', d.hash);
          });
          reject.hidden = d.rejected === true;
          const error = el('p', 'drift-error', undefined, { role: 'alert' });
          error.hidden = true;
          buttons.append(accept, reject);
          li.append(buttons, error);
          rows.set(d.tool, { accept, reject, error });
          return li;
        }),
      );
    },
    setPending(tool, pending, error) {
      const row = rows.get(tool);
      if (!row) return;
      row.accept.setAttribute('aria-disabled', String(pending));
      row.reject.setAttribute('aria-disabled', String(pending));
      setHidden(row.error, !error);
      setText(row.error, error ? `Could not save the decision: ${error}` : '');
    },
  };
}
