/**
 * Changes made in place in a {@link JsonText}: a value set, a key removed or renamed, each
 * one an edit of the bytes it concerns, so that everything else in the file (comments, the
 * BOM, line ends, the layout of untouched arrays, numbers as written, duplicate keys
 * elsewhere) stays byte for byte. {@link opsBetween} turns two values into the fewest such
 * changes: a key whose value is unchanged is not written at all.
 *
 * New text follows the file's layout: its line end, its indentation unit, the indentation of
 * the neighbouring key, one key per line in a multi-line object and inline in an inline one,
 * a trailing comma where the last key already had one. jsonc-parser's own `modify` is not
 * used: its formatter re-lays the whole lines around an insertion, which reflows a
 * neighbouring entry written on one line.
 *
 * Edits never rewrite bytes that are not valid UTF-8: a change that would replace some is
 * refused ({@link JsonTextError}), so such bytes are kept as they are, deleted whole with a
 * removed key, or the file is left alone.
 */
import { isUtf8 } from 'node:buffer';
import { createScanner, type Node } from 'jsonc-parser';
import { isPlainObject } from './configEntry.js';
import { JsonTextError, lineAndColumn, parseJsonText, propertyOf, setOwn, type JsonText } from './jsonText.js';

/** One change at a path of object keys. */
export type JsonOp =
  | { op: 'set'; path: string[]; value: unknown }
  | { op: 'remove'; path: string[] }
  | { op: 'rename'; path: string[]; key: string };

/** Replace `length` characters at `offset` (of `chars`) with `content`. */
interface TextEdit {
  offset: number;
  length: number;
  content: string;
}

// jsonc-parser's SyntaxKind values (a const enum, not importable under isolatedModules).
const COMMA = 5;
const LINE_COMMENT = 12;
const BLOCK_COMMENT = 13;
const LINE_BREAK = 14;
const TRIVIA = 15;
const EOF = 17;

/**
 * Applies `ops` in order, each to the text the previous one left, and returns the new text.
 * `what` names the file in messages.
 * @throws JsonTextError for a path through a duplicate key, or a change that would rewrite
 * bytes that are not valid UTF-8.
 */
export function applyOps(doc: JsonText, ops: readonly JsonOp[], what: string): JsonText {
  let current = doc;
  for (const op of ops) {
    const edits = new Editor(current).edits(op);
    if (edits.length) current = parseJsonText(applyEdits(current, edits), what);
  }
  return current;
}

/**
 * The changes that turn `before` into `after` at `path`: objects are compared key by key
 * (removed keys first, then changed and added ones, added keys in `after`'s order), anything
 * else is set whole when it differs.
 */
export function opsBetween(path: string[], before: unknown, after: unknown, out: JsonOp[] = []): JsonOp[] {
  if (isPlainObject(before) && isPlainObject(after)) {
    const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
    for (const k of Object.keys(before)) if (!has(after, k)) out.push({ op: 'remove', path: [...path, k] });
    for (const k of Object.keys(after)) {
      if (!has(before, k)) out.push({ op: 'set', path: [...path, k], value: after[k] });
      else opsBetween([...path, k], before[k], after[k], out);
    }
  } else if (!sameJson(before, after)) {
    out.push({ op: 'set', path, value: after });
  }
  return out;
}

/** Deep equality of parsed JSON values, key order ignored. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  )
    return false;
  if (Array.isArray(a))
    return a.length === (b as unknown[]).length && a.every((v, i) => sameJson(v, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const rb = b as Record<string, unknown>;
  return (
    ka.length === Object.keys(rb).length &&
    ka.every((k) => Object.prototype.hasOwnProperty.call(rb, k) && sameJson((a as Record<string, unknown>)[k], rb[k]))
  );
}

/** The new bytes: `edits` (none overlapping) applied in offset order, the BOM kept. */
function applyEdits(doc: JsonText, edits: TextEdit[]): Buffer {
  const sorted = edits.map((e, i) => ({ ...e, i })).sort((x, y) => x.offset - y.offset || x.i - y.i);
  const base = doc.bomLength;
  const parts: Buffer[] = [doc.bytes.subarray(0, base)];
  let cursor = 0;
  for (const e of sorted) {
    if (e.offset < cursor) throw new Error('overlapping edits');
    const replaced = doc.bytes.subarray(base + e.offset, base + e.offset + e.length);
    // Bytes deleted whole (a removed entry) are not rewritten: only a replacement could garble them.
    if (!doc.utf8 && e.content !== '' && !isUtf8(replaced)) {
      const { line } = lineAndColumn(doc.chars, e.offset);
      throw new JsonTextError(
        `the change would rewrite bytes on line ${line} that are not valid UTF-8: fix them in an editor first`,
      );
    }
    parts.push(doc.bytes.subarray(base + cursor, base + e.offset), Buffer.from(e.content, 'utf8'));
    cursor = e.offset + e.length;
  }
  parts.push(doc.bytes.subarray(base + cursor));
  return Buffer.concat(parts);
}

/** What follows a value up to the end of its line. */
interface LineTail {
  /** The comma right after the value, if any. */
  comma?: number;
  /** Where the line break starts, when only a comma, blanks and comments follow on the line. */
  lineEnd?: number;
  /** Just past the line break (or the end of the text). */
  nextLine?: number;
}

class Editor {
  private readonly chars: string;
  private readonly spaced: boolean;

  constructor(private readonly doc: JsonText) {
    this.chars = doc.chars;
    // A file with no blank after its colons (JSON.stringify's compact form) gets none either.
    this.spaced = /:[ \t]/.test(doc.chars) || doc.chars.includes('\n');
  }

  edits(op: JsonOp): TextEdit[] {
    if (op.op === 'set') return this.set(op.path, op.value);
    const found = this.find(op.path);
    if (!found) return [];
    if (op.op === 'rename') {
      const key = found.prop.children![0];
      return [{ offset: key.offset, length: key.length, content: JSON.stringify(op.key) }];
    }
    return this.remove(found.object, found.prop);
  }

  /** The property at `path` and its object, or undefined when some key on the way is missing. */
  private find(path: readonly string[]): { object: Node; prop: Node } | undefined {
    let node = this.doc.tree;
    for (let i = 0; i < path.length; i++) {
      if (!node || node.type !== 'object') return undefined;
      const prop = propertyOf(this.doc, node, path[i], path.slice(0, i));
      if (!prop) return undefined;
      if (i === path.length - 1) return { object: node, prop };
      node = prop.children?.[1];
    }
    return undefined;
  }

  private set(path: readonly string[], value: unknown): TextEdit[] {
    const root = this.doc.tree;
    if (!root)
      return [
        { offset: 0, length: this.chars.length, content: `${this.render(wrap(path, value), true, '')}${this.doc.eol}` },
      ];
    let node: Node = root;
    for (let i = 0; i < path.length; i++) {
      if (node.type !== 'object') break;
      const prop = propertyOf(this.doc, node, path[i], path.slice(0, i));
      if (!prop) return this.insert(node, path[i], wrap(path.slice(i + 1), value));
      const child = prop.children![1];
      if (i === path.length - 1 || child.type !== 'object') return this.replace(prop, wrap(path.slice(i + 1), value));
      node = child;
    }
    throw new JsonTextError('the top level of the file is not an object');
  }

  /** The value of `prop` replaced, laid out as the old one was (on one line or several). */
  private replace(prop: Node, value: unknown): TextEdit[] {
    const old = prop.children![1];
    const multiline = this.chars.slice(old.offset, old.offset + old.length).includes('\n');
    return [
      { offset: old.offset, length: old.length, content: this.render(value, multiline, this.indentOf(prop.offset)) },
    ];
  }

  /** `"key": value` added after the last property of `object`. */
  private insert(object: Node, key: string, value: unknown): TextEdit[] {
    const props = object.children ?? [];
    const last = props[props.length - 1];
    const colon = this.spaced ? ': ' : ':';
    if (!last) {
      const inner = { offset: object.offset + 1, length: object.length - 2 };
      const innerText = this.chars.slice(inner.offset, inner.offset + inner.length);
      if (!this.chars.includes('\n'))
        return [{ ...inner, content: `${JSON.stringify(key)}${colon}${this.render(value, false, '')}` }];
      const outer = this.indentOf(object.offset);
      const indent = outer + this.doc.indent;
      const prop = `${JSON.stringify(key)}: ${this.render(value, true, indent)}`;
      // `{}` or `{ }` becomes a block; a block (with comments in it, perhaps) gets the key first.
      if (innerText.trim() === '')
        return [{ ...inner, content: `${this.doc.eol}${indent}${prop}${this.doc.eol}${outer}` }];
      return [{ offset: inner.offset, length: 0, content: `${this.doc.eol}${indent}${prop}` }];
    }
    const end = last.offset + last.length;
    const tail = this.tail(end);
    const multiline =
      this.startsLine(last.offset) && tail.lineEnd !== undefined && this.chars.slice(object.offset, end).includes('\n');
    if (!multiline) {
      const sp = this.spaced ? ' ' : '';
      const prop = `${JSON.stringify(key)}${colon}${this.render(value, false, '')}`;
      return tail.comma !== undefined
        ? [{ offset: tail.comma + 1, length: 0, content: `${sp}${prop},` }]
        : [{ offset: end, length: 0, content: `,${sp}${prop}` }];
    }
    const indent = this.indentOf(last.offset);
    // Laid out as the last value is when it is an object or array on one line (entries written one per line).
    const lastValue = last.children![1];
    const oneLine =
      (lastValue.type === 'object' || lastValue.type === 'array') &&
      !this.chars.slice(lastValue.offset, lastValue.offset + lastValue.length).includes('\n');
    const prop = `${this.doc.eol}${indent}${JSON.stringify(key)}: ${this.render(value, !oneLine, indent)}`;
    // The last key had a trailing comma: so does the new one. Otherwise a comma after the old
    // last value, and the new key on the next line (after any comment that ends the line).
    if (tail.comma !== undefined) return [{ offset: tail.lineEnd!, length: 0, content: `${prop},` }];
    return [
      { offset: end, length: 0, content: ',' },
      { offset: tail.lineEnd!, length: 0, content: prop },
    ];
  }

  /** `prop` removed from `object` with its separator: its whole lines when it has lines of its own. */
  private remove(object: Node, prop: Node): TextEdit[] {
    const props = object.children ?? [];
    const i = props.indexOf(prop);
    const end = prop.offset + prop.length;
    const tail = this.tail(end);
    const ownLines = this.startsLine(prop.offset) && tail.nextLine !== undefined;
    const lines = () => ({
      offset: this.lineStart(prop.offset),
      length: tail.nextLine! - this.lineStart(prop.offset),
      content: '',
    });
    if (props.length === 1) {
      const inner = { offset: object.offset + 1, length: object.length - 2 };
      const rest =
        this.chars.slice(inner.offset, prop.offset) +
        this.chars.slice(tail.nextLine ?? end, inner.offset + inner.length);
      // Nothing else inside (no comment): the object becomes `{}`.
      if (rest.replace(/[\s,]/g, '') === '') return [{ ...inner, content: '' }];
      return ownLines
        ? [lines()]
        : [{ offset: prop.offset, length: (tail.comma ?? end - 1) + 1 - prop.offset, content: '' }];
    }
    if (i < props.length - 1)
      return ownLines ? [lines()] : [{ offset: prop.offset, length: props[i + 1].offset - prop.offset, content: '' }];
    // The last of several: the comma before it goes too, unless it had one of its own (trailing commas kept).
    const prev = props[i - 1];
    const prevEnd = prev.offset + prev.length;
    if (!ownLines) return [{ offset: prevEnd, length: end - prevEnd, content: '' }];
    const separator = this.commaAfter(prevEnd);
    const edits = [lines()];
    if (tail.comma === undefined && separator !== undefined)
      edits.unshift({ offset: separator, length: 1, content: '' });
    return edits;
  }

  /** Scans what follows `pos` on its line. */
  private tail(pos: number): LineTail {
    const s = createScanner(this.chars, false);
    s.setPosition(pos);
    const out: LineTail = {};
    for (;;) {
      const t = s.scan();
      if (t === TRIVIA || t === LINE_COMMENT) continue;
      if (t === BLOCK_COMMENT && !s.getTokenValue().includes('\n')) continue;
      if (t === COMMA && out.comma === undefined) {
        out.comma = s.getTokenOffset();
        continue;
      }
      if (t === LINE_BREAK) {
        out.lineEnd = s.getTokenOffset();
        out.nextLine = s.getTokenOffset() + s.getTokenLength();
      } else if (t === EOF) {
        out.lineEnd = out.nextLine = this.chars.length;
      }
      return out;
    }
  }

  /** The offset of the comma that is the next token after `pos` (comments and lines skipped). */
  private commaAfter(pos: number): number | undefined {
    const s = createScanner(this.chars, true);
    s.setPosition(pos);
    return s.scan() === COMMA ? s.getTokenOffset() : undefined;
  }

  private lineStart(pos: number): number {
    return this.chars.lastIndexOf('\n', pos - 1) + 1;
  }

  private startsLine(pos: number): boolean {
    return this.chars.slice(this.lineStart(pos), pos).trim() === '';
  }

  /** The blanks that start the line `pos` is on. */
  private indentOf(pos: number): string {
    return /^[ \t]*/.exec(this.chars.slice(this.lineStart(pos), pos))![0];
  }

  /** `value` as JSON: over several lines from `indent` on (the file's unit and line end), or on one line. */
  private render(value: unknown, multiline: boolean, indent: string): string {
    if (multiline)
      return JSON.stringify(value, null, this.doc.indent)
        .split('\n')
        .join(this.doc.eol + indent);
    return this.spaced ? inline(value) : JSON.stringify(value);
  }
}

/** `value` under the keys of `path`: `wrap(['a', 'b'], 1)` is `{a: {b: 1}}`. */
function wrap(path: readonly string[], value: unknown): unknown {
  let v = value;
  for (let i = path.length - 1; i >= 0; i--) {
    const o: Record<string, unknown> = {};
    setOwn(o, path[i], v);
    v = o;
  }
  return v;
}

/** One-line JSON with a blank after each `:` and `,` (`{ "a": [1, 2] }`). */
function inline(value: unknown): string {
  if (Array.isArray(value)) return value.length ? `[${value.map(inline).join(', ')}]` : '[]';
  if (isPlainObject(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return entries.length ? `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`).join(', ')} }` : '{}';
  }
  return JSON.stringify(value) ?? 'null';
}
