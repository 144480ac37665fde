/**
 * The Activity view's table of calls, newest first: time, agent, server, method, name,
 * duration, outcome and sizes, at most `maxRows` rows. A row's time is a button that selects
 * the call (its details are shown beside the table); the selected row has `aria-selected`.
 * Setting the rows again keeps the row of each call already shown (the same record): a page
 * or a filter that arrives while the user points at a row never swaps that row out from
 * under the click.
 */
import type { ActivityRecord } from '../shared/activity.js';
import { el } from './dom.js';
import { agentText, bytesText, durationText, outcomeText, timeText } from './activityText.js';

export const MAX_ROWS = 500;

export interface CallTable {
  readonly root: HTMLElement;
  /** Replaces every row (newest first). */
  set(records: readonly ActivityRecord[]): void;
  /** A new call on top; the oldest row goes past `maxRows`. */
  prepend(r: ActivityRecord): void;
  /** Rows shown. */
  readonly count: number;
  select(seq: number | undefined): void;
}

const COLUMNS = ['Time', 'Agent', 'Server', 'Method', 'Name', 'Duration', 'Outcome', 'In', 'Out'];

export function createCallTable(onSelect: (seq: number) => void, maxRows = MAX_ROWS): CallTable {
  const root = el('div', 'calls-scroll');
  const table = el('table', 'calls', undefined, { 'aria-label': 'Calls' });
  const head = el('tr');
  for (const c of COLUMNS) head.append(el('th', undefined, c, { scope: 'col' }));
  const thead = el('thead');
  thead.append(head);
  const body = el('tbody');
  table.append(thead, body);
  root.append(table);
  /** The shown rows by `seq`, each with the record it was made from. */
  const rows = new Map<number, { tr: HTMLTableRowElement; r: ActivityRecord }>();
  let selected: number | undefined;

  const row = (r: ActivityRecord) => {
    const tr = el('tr', `call call-${r.outcome}`);
    tr.dataset.seq = String(r.seq);
    tr.setAttribute('aria-selected', String(r.seq === selected));
    const time = el('td', 'call-time');
    const pick = el('button', 'call-pick', timeText(r.at), {
      type: 'button',
      'aria-label': `Details of ${r.method}${r.name ? ` ${r.name}` : ''} at ${timeText(r.at)}`,
      title: r.at,
    });
    pick.addEventListener('click', () => onSelect(r.seq));
    time.append(pick);
    const cells = [
      agentText(r),
      r.server ?? '\u2014',
      r.method,
      r.name ?? '',
      durationText(r.durationMs),
      outcomeText(r),
      bytesText(r.bytesIn),
      bytesText(r.bytesOut),
    ].map((t) => el('td', undefined, t));
    cells[3]!.className = 'call-name';
    cells[4]!.className = 'call-num';
    cells[5]!.className = 'call-outcome';
    cells[6]!.className = 'call-num';
    cells[7]!.className = 'call-num';
    if (r.error) cells[5]!.title = r.error.message;
    if (r.via) cells[3]!.title = `called through ${r.via}`;
    tr.append(time, ...cells);
    tr.addEventListener('click', (e) => {
      if (e.target !== pick) onSelect(r.seq);
    });
    rows.set(r.seq, { tr, r });
    return tr;
  };

  const trim = () => {
    while (body.rows.length > maxRows) {
      const last = body.lastElementChild as HTMLTableRowElement;
      rows.delete(Number(last.dataset.seq));
      last.remove();
    }
  };

  return {
    root,
    set(records) {
      const shown = records.slice(0, maxRows);
      const kept = new Map<number, HTMLTableRowElement>();
      for (const r of shown) {
        const had = rows.get(r.seq);
        // The same record object: its row is still right (after a reconnect the records are new).
        if (had?.r === r) kept.set(r.seq, had.tr);
      }
      for (const seq of rows.keys()) if (!kept.has(seq)) rows.delete(seq);
      const trs = shown.map((r) => kept.get(r.seq) ?? row(r));
      const now = body.rows;
      if (trs.length === now.length && trs.every((tr, i) => tr === now[i])) return;
      // Rows kept in place stay in the document: only the others move in and out.
      const wanted = new Set(trs);
      for (const tr of Array.from(now)) if (!wanted.has(tr)) tr.remove();
      let at: Element | null = body.firstElementChild;
      for (const tr of trs) {
        if (tr === at) at = tr.nextElementSibling;
        else body.insertBefore(tr, at);
      }
    },
    prepend(r) {
      if (rows.has(r.seq)) return;
      body.prepend(row(r));
      trim();
    },
    get count() {
      return body.rows.length;
    },
    select(seq) {
      if (selected !== undefined) rows.get(selected)?.tr.setAttribute('aria-selected', 'false');
      selected = seq;
      if (seq !== undefined) rows.get(seq)?.tr.setAttribute('aria-selected', 'true');
    },
  };
}
