/**
 * The text an install plan builds (a command, an argument, an env or header value, a URL) as
 * pieces that remember where they came from: the document's fixed text, a value the user
 * typed, a value the user typed into a secret field, or a reference the install makes itself
 * (`${QIMING_DATA_DIR}`, `${QIMING_NODE}`). The consent shows every piece as it runs but the
 * user's secret ones (masked by position, never by searching for their text), and the entry
 * is written from the same pieces, so what is shown and what is written cannot part.
 */
import { asLiteral } from './literal.js';

/** What the consent shows in place of a value the user typed into a secret field. */
export const MASK = '********';

export interface Piece {
  /** The text as the server gets it. */
  text: string;
  /** Typed by the user into a secret field: the key of that field's input. */
  secret?: string;
  /** How the entry writes it when not literally (a reference the runtime expands to `text`). */
  entry?: string;
}

export type PlanText = readonly Piece[];

/** Text the document (or the install) fixes: shown, and written literally. */
export function fixed(text: string): PlanText {
  return text === '' ? [] : [{ text }];
}

/** A value the user typed; `secretKey` names its input when the field is a secret one. */
export function typed(text: string, secretKey?: string): PlanText {
  if (text === '') return [];
  return secretKey === undefined ? [{ text }] : [{ text, secret: secretKey }];
}

/** A reference the runtime expands at start (`entry`) to `text`. */
export function reference(text: string, entry: string): PlanText {
  return [{ text, entry }];
}

export function concat(...parts: PlanText[]): PlanText {
  return parts.flat();
}

/** The text the server gets. */
export function realText(t: PlanText): string {
  return t.map((p) => p.text).join('');
}

/** The text the consent shows: the user's secret pieces masked. */
export function shownText(t: PlanText): string {
  return t.map((p) => (p.secret !== undefined ? MASK : p.text)).join('');
}

/** Whether any piece is a value the user typed into a secret field. */
export function hasSecret(t: PlanText): boolean {
  return t.some((p) => p.secret !== undefined);
}

/**
 * The entry's text for `t`: fixed and typed pieces literal (literal.ts), references as they
 * are, and each secret piece as `secret(piece)` (its `${secret:NAME}` reference, or its
 * literal text where no store can keep it).
 */
export function entryText(t: PlanText, secret: (p: Piece) => string = (p) => asLiteral(p.text)): string {
  return t.map((p) => (p.secret !== undefined ? secret(p) : (p.entry ?? asLiteral(p.text)))).join('');
}

/** The pieces of `t` from character `from` to `to` of its real text. */
export function slice(t: PlanText, from: number, to = Infinity): PlanText {
  const out: Piece[] = [];
  let at = 0;
  for (const p of t) {
    const start = Math.max(from - at, 0);
    const end = Math.min(to - at, p.text.length);
    if (end > start) {
      // A part of a reference is no longer that reference: it is written as its text.
      const { entry: _entry, ...rest } = p;
      out.push(start === 0 && end === p.text.length ? p : { ...rest, text: p.text.slice(start, end) });
    }
    at += p.text.length;
  }
  return out;
}

/**
 * `{name}` in the document's `template` replaced by `values(name)`; an unknown name stays as it
 * is (the server.json rule). The template's own text is fixed.
 */
export function fillTemplate(template: string, values: (name: string) => PlanText | undefined): PlanText {
  const out: Piece[] = [];
  let at = 0;
  for (const m of template.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    const v = values(m[1]);
    if (v === undefined) continue;
    out.push(...fixed(template.slice(at, m.index)), ...v);
    at = m.index + m[0].length;
  }
  out.push(...fixed(template.slice(at)));
  return out;
}
