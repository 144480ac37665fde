/**
 * Small accessible controls the management UI is built from: a switch (`role="switch"`,
 * `aria-checked`), a labelled field, a modal dialog, and the text conversions of the form
 * (one argument per line, `NAME=value` and `Name: value` lines).
 */
import { el, uniqueId } from './dom.js';

export interface Switch {
  readonly root: HTMLButtonElement;
  set(checked: boolean): void;
  setBusy(busy: boolean): void;
}

/** A switch named `label`; `onToggle(next)` runs when the user flips it. */
export function createSwitch(label: string, checked: boolean, onToggle: (next: boolean) => void): Switch {
  const root = el('button', 'switch', undefined, { type: 'button', role: 'switch', 'aria-label': label });
  root.append(el('span', 'switch-knob', undefined, { 'aria-hidden': 'true' }));
  let busy = false;
  const set = (c: boolean) => root.setAttribute('aria-checked', String(c));
  set(checked);
  root.addEventListener('click', () => {
    if (busy) return;
    onToggle(root.getAttribute('aria-checked') !== 'true');
  });
  return {
    root,
    set,
    setBusy(b) {
      busy = b;
      root.setAttribute('aria-busy', String(b));
    },
  };
}

/** `<label>` + control, returned as a wrapper and the control. */
export function field<T extends HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
  label: string,
  control: T,
  hint?: string,
): HTMLDivElement {
  const wrap = el('div', 'field');
  const id = uniqueId('field');
  control.id = id;
  const l = el('label', undefined, label, { for: id });
  wrap.append(l, control);
  if (hint) {
    const h = el('p', 'field-hint', hint, { id: `${id}-hint` });
    control.setAttribute('aria-describedby', h.id);
    wrap.append(h);
  }
  return wrap;
}

export function button(text: string, className = '', attrs: Record<string, string> = {}): HTMLButtonElement {
  return el('button', className || undefined, text, { type: 'button', ...attrs });
}

export interface Dialog {
  readonly root: HTMLDialogElement;
  readonly body: HTMLDivElement;
  open(): void;
  close(): void;
}

/** A modal dialog titled `title`, appended to the document, removed when closed. */
export function createDialog(title: string, className = ''): Dialog {
  const id = uniqueId('dialog-title');
  const root = el('dialog', `dialog ${className}`.trim(), undefined, { 'aria-labelledby': id });
  const body = el('div', 'dialog-body');
  root.append(el('h2', 'dialog-title', title, { id }), body);
  root.addEventListener('close', () => root.remove());
  return {
    root,
    body,
    open() {
      document.body.append(root);
      root.showModal();
    },
    close() {
      if (root.open) root.close();
      root.remove();
    },
  };
}

/** Non-empty lines, trimmed at the end (an argument may start with spaces on purpose: kept). */
export function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.replace(/\s+$/, ''))
    .filter((l) => l !== '');
}

/** `NAME=value` (env) or `Name: value` (headers) lines into a map; bad lines reported. */
export function pairsOf(text: string, sep: '=' | ':', what: string): { map: Record<string, string>; errors: string[] } {
  const map: Record<string, string> = {};
  const errors: string[] = [];
  linesOf(text).forEach((line, i) => {
    const at = line.indexOf(sep);
    if (at <= 0) {
      errors.push(`${what} line ${i + 1} needs the form ${sep === '=' ? 'NAME=value' : 'Name: value'}`);
      return;
    }
    const key = line.slice(0, at).trim();
    map[key] = sep === ':' ? line.slice(at + 1).trim() : line.slice(at + 1);
  });
  return { map, errors };
}

/** The inverse of {@link pairsOf}. */
export function pairsText(map: Record<string, string> | undefined, sep: '=' | ':'): string {
  return Object.entries(map ?? {})
    .map(([k, v]) => (sep === ':' ? `${k}: ${v}` : `${k}=${v}`))
    .join('\n');
}
