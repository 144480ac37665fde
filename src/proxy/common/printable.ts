/**
 * Text from an untrusted source (a server's stdout) made safe to put in a log line: at most
 * `maxChars` characters, control characters and the Unicode ones that reorder or break lines
 * escaped (`\x1b`, `\r`, `\u202e`), and a fresh string that does not keep the source alive.
 */

// C0 (tab included: it would look like spaces), DEL, C1, line/paragraph separators and the
// bidirectional overrides and isolates.
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

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
