/**
 * The Activity view's detail pane: every recorded field of the selected call, and its
 * captured arguments and result when its server captures (masked and cut by the log).
 */
import type { ActivityRecord } from '../shared/activity.js';
import { el } from './dom.js';
import { OUTCOME_LABELS, agentText, bytesText, durationText } from './activityText.js';
import { createAppViewButton, type ViewOpener } from './appViewButton.js';

export interface CallDetail {
  readonly root: HTMLElement;
  show(r: ActivityRecord | undefined): void;
}

/** `views`: the view of a call with one (an "Open app" button, appViewButton.ts); absent: no button. */
export function createCallDetail(views?: ViewOpener): CallDetail {
  let unmount: (() => void) | undefined;
  const root = el('section', 'call-detail', undefined, { 'aria-label': 'Call details' });
  const empty = el('p', 'call-detail-empty', 'Select a call to see its details.');
  root.append(empty);
  return {
    root,
    show(r) {
      unmount?.();
      unmount = undefined;
      if (!r) {
        root.replaceChildren(empty);
        return;
      }
      const dl = el('dl', 'call-fields');
      const fact = (label: string, value: string | undefined) => {
        if (value === undefined) return;
        const wrap = el('div', 'call-field');
        wrap.append(el('dt', undefined, label), el('dd', undefined, value));
        dl.append(wrap);
      };
      fact('Time', r.at);
      fact('Agent', agentText(r));
      fact('Session', String(r.session));
      fact('Server', r.server ?? '\u2014');
      fact('Method', r.method);
      fact('Name', r.name);
      fact('Called through', r.via);
      fact('Duration', `${durationText(r.durationMs)} (${r.durationMs} ms)`);
      fact('Outcome', OUTCOME_LABELS[r.outcome] ?? r.outcome);
      if (r.error) {
        fact('Error code', String(r.error.code));
        fact('Error message', r.error.message);
      }
      fact('Progress', String(r.progress));
      if (r.bytesIn !== undefined) fact('Bytes in', `${bytesText(r.bytesIn)} (${r.bytesIn})`);
      if (r.bytesOut !== undefined) fact('Bytes out', `${bytesText(r.bytesOut)} (${r.bytesOut})`);
      fact('Number', String(r.seq));
      const parts: HTMLElement[] = [el('h3', undefined, `${r.method}${r.name ? ` ${r.name}` : ''}`), dl];
      const captured = (label: string, text: string | undefined) => {
        if (text === undefined) return;
        const pre = el('pre', 'call-captured', text, { tabindex: '0', 'aria-label': label });
        parts.push(el('h4', undefined, label), pre);
      };
      captured('Captured arguments', r.captured?.params);
      captured('Captured result', r.captured?.result);
      const key = r.app?.view;
      if (views && key !== undefined) {
        const app = createAppViewButton(views, key);
        unmount = () => app.unmount();
        fact('App view', r.app!.resourceUri);
        parts.push(...app.parts);
      }
      root.replaceChildren(...parts);
    },
  };
}
