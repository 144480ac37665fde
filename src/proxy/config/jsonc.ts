/**
 * JSON with comments (`//`, `/* *\/`) and trailing commas, as VS Code and Cursor write their
 * `mcp.json`, turned into plain JSON for `JSON.parse`.
 *
 * Every comment and every trailing comma becomes spaces (line breaks kept), so the result has
 * the length and the line structure of the input: a syntax error that `JSON.parse` reports
 * at a position is at the same line and column in the user's file. Strings are copied as
 * they are, so `//`, `/*` and `,}` inside a string are text, not syntax.
 *
 * Hand-written rather than jsonc-parser: config reading is in the core file every start of
 * the CLI loads, and this is a few hundred bytes where the parser's scanner is tens of KB.
 */

/** `text` with comments and trailing commas blanked out (see the file comment). */
export function jsoncToJson(text: string): string {
  const out = text.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n' && out[k] !== '\r') out[k] = ' ';
  };
  /** Index of the last comma seen outside strings and comments with only blanks after it, or -1. */
  let pendingComma = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      pendingComma = -1;
      for (i++; i < text.length && text[i] !== '"' && text[i] !== '\n'; i++) if (text[i] === '\\') i++;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      blank(i, stop);
      i = stop - 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      blank(i, stop);
      i = stop - 1;
    } else if (c === ',') {
      pendingComma = i;
    } else if (c === '}' || c === ']') {
      if (pendingComma >= 0) out[pendingComma] = ' ';
      pendingComma = -1;
    } else if (!/\s/.test(c)) {
      pendingComma = -1;
    }
  }
  return out.join('');
}
