/**
 * One server's log in a dialog: the runtime's lines about it and its stderr (log file and the
 * bounded ring, see serverLog.ts on the bridge), with a level filter (that level and above),
 * a search, follow mode (re-read every second, kept scrolled to the end) and Copy (the lines
 * shown).
 */
import type { LogLine } from '../shared/configContract.js';
import { el, setText } from './dom.js';
import { button, createDialog, field } from './controls.js';
import type { ManagementApi } from './management.js';

const RANK: Record<string, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const FOLLOW_MS = 1000;

/** Lines at `minLevel` or above whose text contains `search` (case-insensitive). */
export function filterLines(lines: readonly LogLine[], minLevel: string, search: string): LogLine[] {
  const min = RANK[minLevel] ?? 0;
  const q = search.trim().toLowerCase();
  return lines.filter((l) => (RANK[l.level] ?? 1) >= min && (q === '' || l.text.toLowerCase().includes(q)));
}

export function openLogView(api: ManagementApi, id: string): HTMLDialogElement {
  const dialog = createDialog(`Log of ${id}`, 'log-view');
  const level = el('select');
  for (const [v, t] of [
    ['debug', 'All'],
    ['info', 'Info and above'],
    ['warn', 'Warnings and errors'],
    ['error', 'Errors only'],
  ])
    level.append(el('option', undefined, t, { value: v }));
  const search = el('input', undefined, undefined, { type: 'search', spellcheck: 'false' });
  const follow = el('input', undefined, undefined, { type: 'checkbox' });
  const copy = button('Copy');
  const close = button('Close');
  const bar = el('div', 'log-controls');
  bar.append(field('Level', level), field('Search', search), field('Follow', follow), copy, close);
  const count = el('p', 'log-count', undefined, { role: 'status' });
  const list = el('ol', 'log-lines', undefined, { 'aria-label': `Log lines of ${id}`, tabindex: '0' });
  dialog.body.append(bar, count, list);

  let lines: LogLine[] = [];
  let truncated = false;
  let shown: LogLine[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;

  const render = () => {
    shown = filterLines(lines, level.value, search.value);
    list.replaceChildren(
      ...shown.map((l) => {
        const li = el('li', `log-line log-${l.level}`);
        li.append(el('span', 'log-level', l.level.toUpperCase()), el('span', 'log-line-text', l.text));
        return li;
      }),
    );
    setText(count, `${shown.length} of ${lines.length} lines${truncated ? ' (older lines are in the log file)' : ''}`);
    if (follow.checked) list.scrollTop = list.scrollHeight;
  };
  const load = () =>
    api.serverLog(id).then((r) => {
      if (!r.ok) {
        setText(count, `Cannot read the log: ${r.error ?? 'unknown error'}`);
        return;
      }
      lines = r.lines;
      truncated = r.truncated;
      render();
    });

  level.addEventListener('change', render);
  search.addEventListener('input', render);
  follow.addEventListener('change', () => {
    clearInterval(timer);
    timer = follow.checked ? setInterval(() => void load(), FOLLOW_MS) : undefined;
    if (follow.checked) void load();
  });
  copy.addEventListener('click', () => {
    const text = shown.map((l) => `[${l.level}] ${l.text}`).join('\n');
    void navigator.clipboard.writeText(text).then(
      () => setText(copy, 'Copied'),
      () => setText(copy, 'Copy failed'),
    );
    setTimeout(() => setText(copy, 'Copy'), 2000);
  });
  close.addEventListener('click', () => dialog.close());
  dialog.root.addEventListener('close', () => clearInterval(timer));
  dialog.open();
  void load();
  return dialog.root;
}
