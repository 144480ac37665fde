/**
 * A JSON or JSONC file (comments and trailing commas allowed, as in VS Code's `mcp.json`)
 * read as its exact bytes with a syntax tree over them, so that changes can be made in
 * place (jsonTextEdit.ts) and every byte outside a change stays as it was: the BOM, CRLF
 * line ends, comments, the layout of arrays, numbers as written (`1.0`,
 * `12345678901234567890`), duplicate keys, `__proto__` keys and bytes that are not valid
 * UTF-8.
 *
 * The tree is built by jsonc-parser over the bytes taken one character each (latin1), so its
 * offsets are byte offsets: JSON's structure is ASCII, and a string's UTF-8 bytes are read as
 * UTF-8 again when its value is taken. The value (what the runtime sees) follows JSON.parse:
 * the last of duplicate keys wins at the place of the first, `__proto__` is an own key, and
 * bytes that are not UTF-8 read as U+FFFD. Duplicate keys are reported as warnings.
 */
import { isUtf8 } from 'node:buffer';
import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { formatPath } from './configEntry.js';
import { depthMessage, textNestsDeeper } from './jsonDepth.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const NON_ASCII_RE = /[\u0080-\uffff]/;

/** Text that cannot be read as JSON or JSONC, or nests too deep; the message quotes no value. */
export class JsonTextError extends Error {
  override readonly name = 'JsonTextError';
  /** @param tooDeep the text nests deeper than the limit (jsonDepth.ts). */
  constructor(
    message: string,
    readonly tooDeep = false,
  ) {
    super(message);
  }
}

/** A parsed JSON/JSONC file; offsets in `tree` are offsets into `chars` (bytes after the BOM). */
export interface JsonText {
  /** The whole file, BOM included. */
  readonly bytes: Buffer;
  /** 3 when the file starts with a UTF-8 BOM, else 0. */
  readonly bomLength: number;
  /** The bytes after the BOM, one character per byte. */
  readonly chars: string;
  /** Undefined for an empty (or whitespace-only) file. */
  readonly tree: Node | undefined;
  /** The value, as JSON.parse would give it; undefined for an empty file. */
  readonly value: unknown;
  /** One line per duplicate key (where, and that the last one counts). */
  readonly duplicates: string[];
  /** Whether every byte is valid UTF-8. */
  readonly utf8: boolean;
  /** The line end the file uses (its first one), `\n` when it has none. */
  readonly eol: string;
  /** One level of indentation: the first indented line's whitespace, default two spaces. */
  readonly indent: string;
}

/** `o[k] = v` as an own property, as JSON.parse makes it, "__proto__" included (an assignment would set the prototype). */
export function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** 1-based line and byte column of `offset` in `chars`. */
export function lineAndColumn(chars: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = chars.indexOf('\n'); i >= 0 && i < offset; i = chars.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/**
 * Reads `bytes` as JSON or JSONC. `what` names the text in messages ("/home/me/mcp.json",
 * "the snippet").
 * @throws JsonTextError when the text is not JSON/JSONC or nests deeper than the limit.
 */
export function parseJsonText(bytes: Buffer, what: string): JsonText {
  const bomLength = bytes.subarray(0, 3).equals(BOM) ? 3 : 0;
  const chars = bytes.toString('latin1', bomLength);
  if (textNestsDeeper(chars)) throw new JsonTextError(depthMessage(what), true);
  const errors: ParseError[] = [];
  const tree =
    chars.trim() === ''
      ? undefined
      : parseTree(chars, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  if (errors.length) {
    const at = lineAndColumn(chars, errors[0].offset);
    throw new JsonTextError(
      `${what} is not valid JSON: ${describeError(errors[0].error)} at line ${at.line}, column ${at.column}`,
    );
  }
  const eolMatch = /\r?\n/.exec(chars);
  const indentMatch = /\n([ \t]+)\S/.exec(chars);
  const reader = new ValueReader(bytes, bomLength, chars);
  return {
    bytes,
    bomLength,
    chars,
    tree,
    value: tree ? reader.value(tree, []) : undefined,
    duplicates: reader.duplicates,
    utf8: isUtf8(bytes),
    eol: eolMatch ? eolMatch[0] : '\n',
    indent: indentMatch ? indentMatch[1] : '  ',
  };
}

/** Reads a snippet given as a string (pasted text). */
export function parseJsonString(text: string, what: string): JsonText {
  return parseJsonText(Buffer.from(text, 'utf8'), what);
}

function describeError(code: number): string {
  const name = printParseErrorCode(code);
  // "CloseBraceExpected" -> "close brace expected"
  return name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** The values of a tree: strings decoded from their UTF-8 bytes, keys as own properties. */
class ValueReader {
  readonly duplicates: string[] = [];

  constructor(
    private readonly bytes: Buffer,
    private readonly base: number,
    private readonly chars: string,
  ) {}

  /** Depth is bounded by the check before parsing, so this recursion is too. */
  value(node: Node, path: string[]): unknown {
    switch (node.type) {
      case 'object': {
        const out: Record<string, unknown> = {};
        for (const prop of node.children ?? []) {
          const [keyNode, valueNode] = prop.children ?? [];
          if (!keyNode || !valueNode) continue;
          const key = this.string(keyNode);
          if (Object.prototype.hasOwnProperty.call(out, key)) {
            const { line } = lineAndColumn(this.chars, keyNode.offset);
            this.duplicates.push(
              `duplicate key ${JSON.stringify(key)} in ${formatPath(path) || 'the top level'} (line ${line}): the last one counts`,
            );
          }
          // An own property even for "__proto__"; a duplicate keeps the first one's place, as in JSON.parse.
          setOwn(out, key, this.value(valueNode, [...path, key]));
        }
        return out;
      }
      case 'array':
        return (node.children ?? []).map((child, i) => this.value(child, [...path, String(i)]));
      case 'string':
        return this.string(node);
      default:
        return node.value as unknown;
    }
  }

  /** A string token's value; non-ASCII bytes are read as UTF-8. */
  string(node: Node): string {
    const raw = this.chars.slice(node.offset, node.offset + node.length);
    if (!NON_ASCII_RE.test(raw)) return node.value as string;
    const utf8 = this.bytes.toString('utf8', this.base + node.offset, this.base + node.offset + node.length);
    try {
      return JSON.parse(utf8) as string;
    } catch {
      return node.value as string;
    }
  }
}

/** The decoded key of a property node. */
export function keyOf(doc: JsonText, prop: Node): string {
  const keyNode = prop.children?.[0];
  return keyNode ? new ValueReader(doc.bytes, doc.bomLength, doc.chars).string(keyNode) : '';
}

/**
 * The property of `object` named `key`, or undefined; `path` (the object's own path) names it
 * in the error.
 * @throws JsonTextError when the key appears more than once: which one an edit should change
 * is not clear (the runtime reads the last), so the file must be fixed by hand first.
 */
export function propertyOf(doc: JsonText, object: Node, key: string, path: readonly string[]): Node | undefined {
  const matches = (object.children ?? []).filter((p) => keyOf(doc, p) === key);
  if (matches.length > 1) {
    throw new JsonTextError(
      `${formatPath([...path, key])} appears more than once in the file: remove one of them in an editor first`,
    );
  }
  return matches[0];
}
