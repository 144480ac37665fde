/**
 * The request id of a message that is too large to parse: read from its first bytes,
 * without parsing the rest, so an oversize request can still be answered by id.
 */

const ID_VALUE_RE = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*"/y;

/**
 * Reads the top-level `"id"` of a (possibly truncated) JSON object text without parsing
 * the whole text; nested `"id"` keys are ignored. Returns undefined when unsure.
 */
export function extractIdHint(text: string): string | number | undefined {
  let depth = 0;
  let prev = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      const close = stringEnd(text, i);
      if (close < 0) return undefined;
      if (depth === 1 && (prev === '{' || prev === ',')) {
        let j = skipSpace(text, close + 1);
        if (text[j] !== ':') return undefined;
        j = skipSpace(text, j + 1);
        if (text.slice(i + 1, close) === 'id') return idValueAt(text, j);
        i = j - 1;
        prev = ':';
        continue;
      }
      i = close;
      prev = '"';
    } else if (ch === '{' || ch === '[') {
      depth++;
      prev = ch;
    } else if (ch === '}' || ch === ']') {
      depth--;
      prev = ch;
    } else if (ch !== ' ' && ch !== '\t' && ch !== '\r' && ch !== '\n') {
      prev = ch;
    }
  }
  return undefined;
}

function stringEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') i++;
    else if (ch === '"') return i;
  }
  return -1;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  return i;
}

function idValueAt(text: string, at: number): string | number | undefined {
  ID_VALUE_RE.lastIndex = at;
  const m = ID_VALUE_RE.exec(text);
  // A value touching the end of the head may be cut short: no hint rather than a wrong one.
  if (!m || at + m[0].length >= text.length) return undefined;
  try {
    const v: unknown = JSON.parse(m[0]);
    return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : undefined;
  } catch {
    return undefined;
  }
}
