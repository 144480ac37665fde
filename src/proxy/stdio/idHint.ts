/**
 * What can be told of a message too large to parse from the bytes kept of it, its first and
 * last few hundred: the top-level members are read forwards from the head and backwards from
 * the tail, without parsing the rest. That gives the id (the SDK writes it last, other
 * writers first) and whether the message is a request or notification (a `"method"`) or a
 * response (a `"result"` or an `"error"`). Nested members are ignored; anything unsure
 * (a value cut by the end of the head, a string opening before the start of the tail) is
 * left out rather than guessed.
 */

export type IdHint = string | number;

/** See the module comment. */
export interface FrameHint {
  id?: IdHint;
  /**
   * `call`: a top-level "method" was seen (a request, or a notification); `reply`: a "result"
   * or an "error" and no "method"; `object`: a JSON object, neither seen; undefined: the
   * head does not open a JSON object, so the bytes were no JSON-RPC message at all.
   */
  shape?: 'call' | 'reply' | 'object';
}

interface Seen {
  id?: IdHint;
  method: boolean;
  reply: boolean;
}

const ID_VALUE_RE = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*"/y;
/** The characters of a number, `true`, `false` or `null`. */
const LITERAL_CHAR_RE = /[0-9A-Za-z.+-]/;
const OPENS_OBJECT_RE = /^[ \t\r\n]*\{/;

/** Reads the head and the tail of a skipped message; see the module comment. */
export function frameHint(head: string, tail: string): FrameHint {
  if (!OPENS_OBJECT_RE.test(head)) return {};
  const first = scanHead(head);
  const last = scanTail(tail);
  const hint: FrameHint = {
    shape: first.method || last.method ? 'call' : first.reply || last.reply ? 'reply' : 'object',
  };
  const id = first.id ?? last.id;
  if (id !== undefined) hint.id = id;
  return hint;
}

/** The top-level `"id"` of the start of a JSON object text (possibly cut short), or undefined. */
export function extractIdHint(text: string): IdHint | undefined {
  return scanHead(text).id;
}

/** The top-level `"id"` of the end of a JSON object text (possibly missing its start), or undefined. */
export function extractTailIdHint(text: string): IdHint | undefined {
  return scanTail(text).id;
}

function note(seen: Seen, key: string): void {
  if (key === 'method') seen.method = true;
  else if (key === 'result' || key === 'error') seen.reply = true;
}

/** Forwards through the top-level members until the text ends or is unsure. */
function scanHead(text: string): Seen {
  const seen: Seen = { method: false, reply: false };
  let depth = 0;
  let prev = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      const close = stringEnd(text, i);
      if (close < 0) return seen;
      if (depth === 1 && (prev === '{' || prev === ',')) {
        let j = skipSpace(text, close + 1);
        if (text[j] !== ':') return seen;
        j = skipSpace(text, j + 1);
        const key = text.slice(i + 1, close);
        note(seen, key);
        if (key === 'id' && seen.id === undefined) seen.id = idValueAt(text, j);
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
  return seen;
}

/**
 * Backwards from the closing brace through the top-level members (value, colon, key, comma)
 * until the opening brace, or until a member reaches before the start of the text.
 */
function scanTail(text: string): Seen {
  const seen: Seen = { method: false, reply: false };
  let i = skipSpaceBack(text, text.length - 1);
  if (text[i] !== '}') return seen;
  i = skipSpaceBack(text, i - 1);
  while (i > 0 && text[i] !== '{') {
    const valueStart = valueStartBack(text, i);
    if (valueStart < 0) return seen;
    const value = text.slice(valueStart, i + 1);
    i = skipSpaceBack(text, valueStart - 1);
    if (text[i] !== ':') return seen;
    i = skipSpaceBack(text, i - 1);
    const keyStart = text[i] === '"' ? stringStartBack(text, i) : -1;
    if (keyStart < 0) return seen;
    const key = text.slice(keyStart + 1, i);
    note(seen, key);
    if (key === 'id' && seen.id === undefined) seen.id = idValue(value);
    i = skipSpaceBack(text, keyStart - 1);
    if (text[i] !== ',') return seen;
    i = skipSpaceBack(text, i - 1);
  }
  return seen;
}

/** Where the value ending at `end` starts, or -1 when it may start before the text. */
function valueStartBack(text: string, end: number): number {
  const ch = text[end]!;
  if (ch === '"') return stringStartBack(text, end);
  if (ch === '}' || ch === ']') {
    let depth = 0;
    for (let k = end; k >= 0; k--) {
      const c = text[k]!;
      if (c === '"') {
        k = stringStartBack(text, k);
        if (k < 0) return -1;
      } else if (c === '}' || c === ']') depth++;
      else if (c === '{' || c === '[') {
        depth--;
        if (depth === 0) return k;
      }
    }
    return -1;
  }
  let k = end;
  while (k >= 0 && LITERAL_CHAR_RE.test(text[k]!)) k--;
  // A literal running into the start of the text may be cut: unsure.
  return k === end || k < 0 ? -1 : k + 1;
}

/**
 * The opening quote of the string closed at `close`: the nearest quote before it that is not
 * escaped (preceded by an even run of backslashes). A quote whose backslash run reaches the
 * start of the text cannot be told apart: -1, as for no quote at all.
 */
function stringStartBack(text: string, close: number): number {
  for (let k = close - 1; k >= 0; k--) {
    if (text[k] !== '"') continue;
    let b = k - 1;
    while (b >= 0 && text[b] === '\\') b--;
    if (b < 0) return -1;
    if ((k - 1 - b) % 2 === 0) return k;
  }
  return -1;
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

function skipSpaceBack(text: string, i: number): number {
  while (i >= 0 && ' \t\r\n'.includes(text[i]!)) i--;
  return i;
}

function idValueAt(text: string, at: number): IdHint | undefined {
  ID_VALUE_RE.lastIndex = at;
  const m = ID_VALUE_RE.exec(text);
  // A value touching the end of the head may be cut short: no hint rather than a wrong one.
  if (!m || at + m[0].length >= text.length) return undefined;
  return idValue(m[0]);
}

/** A JSON token as an id: a string or a finite number, else undefined. */
function idValue(token: string): IdHint | undefined {
  try {
    const v: unknown = JSON.parse(token);
    return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : undefined;
  } catch {
    return undefined;
  }
}
