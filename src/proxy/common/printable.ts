/**
 * Text from an untrusted source (a server's stdout, its stderr, a tool or client name) made
 * safe to put in a log line: control characters and the Unicode ones that reorder or break
 * lines escaped (`\x1b`, `\r`, `\u202e`), so a terminal that shows the log runs no escape
 * sequence (a cleared screen, an OSC 52 clipboard write) and shows the text in its order.
 * `printable` also cuts to `maxChars` and copies; `printableLines` keeps line breaks and tabs
 * for the logger (logger.ts), which escapes every line it writes; `printableJson` does it for
 * a JSON line (the activity file), still the same JSON.
 */

// DEL, C1, line/paragraph separators and the bidirectional marks, embeddings, overrides and
// isolates; with C0 (tab included: it would look like spaces) what `printable` escapes.
const UNSAFE_ABOVE_C0 = '\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const UNSAFE = new RegExp(`[\\x00-\\x1f${UNSAFE_ABOVE_C0}]`, 'g');
/** A log line's: its line breaks (`\n`, `\r\n`) matched apart, its tabs kept (a stack trace's indent moves no text). */
const UNSAFE_IN_LINES = new RegExp(`\\r?\\n|[\\x00-\\x08\\x0b-\\x1f${UNSAFE_ABOVE_C0}]`, 'g');
/** What JSON.stringify leaves as it is (it escapes C0 itself). */
const UNSAFE_IN_JSON = new RegExp(`[${UNSAFE_ABOVE_C0}]`, 'g');

const escapeChar = (ch: string): string => {
  const code = ch.charCodeAt(0);
  if (ch === '\r') return '\\r';
  if (ch === '\n') return '\\n';
  if (ch === '\t') return '\\t';
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** See the module comment; a cut text ends with `...`. */
export function printable(text: string, maxChars: number): string {
  const cut = text.length > maxChars;
  const shown = (cut ? text.slice(0, maxChars) : text).replace(UNSAFE, escapeChar) + (cut ? '...' : '');
  // A slice of a huge line would keep the whole line in memory for as long as it lives.
  return Buffer.from(shown, 'utf8').toString('utf8');
}

/** `text` escaped as {@link printable} does but its tabs, uncut, each line break written as `lineBreak`. */
export function printableLines(text: string, lineBreak: string): string {
  return text.replace(UNSAFE_IN_LINES, (m) => (m.endsWith('\n') ? lineBreak : escapeChar(m)));
}

/** JSON text (from JSON.stringify) with those characters as `\uXXXX` escapes: it parses to the same value. */
export function printableJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
