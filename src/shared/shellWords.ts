/**
 * A command and its arguments (or one value) as text a user can read and paste into a POSIX
 * shell (bash, zsh), with nothing hidden: a word of plain characters as it is, any other in
 * single quotes, and a word holding a character that does not show as itself (a line break, a
 * control character, a right-to-left override or other bidi control, a zero-width or
 * non-ASCII space) in `$'...'` with that character escaped (`\n`, `\x1b`, `\u202e`), so the
 * line reads in order and on one line. Used by the install consent (the runtime builds the
 * line, the panel quotes the values it lists).
 */

/** Characters that do not show as themselves: controls, format and bidi controls, separators, spaces other than U+0020, lone surrogates. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu');
const NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

/** One word as a shell reads it back to exactly `word`. */
export function shellWord(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  if (!HIDDEN.test(word)) return `'${word.replace(/'/g, `'\\''`)}'`;
  const body = word.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
  return `$'${body.replace(HIDDEN_ALL, escapeChar)}'`;
}

function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x80) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `command` and `args` as one line. */
export function commandLine(command: string, args: readonly string[]): string {
  return [command, ...args].map(shellWord).join(' ');
}
