/**
 * Whether a resource URI could come from a server's resource template (RFC 6570), so that an
 * aggregate sends its `resources/read` to that server (hub.ts `resourceOwner`). Every
 * expression (`{…}`, any operator) stands for one or more characters; the text between
 * expressions stands for itself. Matched in one pass, left to right, never going back: a
 * template's matching costs the same whatever its expressions and the URI (a pattern with an
 * `.+` per expression backtracks in time that grows as the URI's length to the power of their
 * number).
 */
import type { Item } from '../upstream/listCache.js';

/** Each template item's literal parts, read once per list. */
const PARTS = new WeakMap<Item, readonly string[]>();

/** The text around a template's expressions: `a{x}b{y}{z}` → `a`, `b`, ``, ``. */
export function literalParts(template: string): string[] {
  const parts: string[] = [];
  let literal = 0;
  for (;;) {
    const open = template.indexOf('{', literal);
    const close = open < 0 ? -1 : template.indexOf('}', open + 1);
    // An unclosed brace is text, as is everything after it.
    if (close < 0) break;
    parts.push(template.slice(literal, open));
    literal = close + 1;
  }
  parts.push(template.slice(literal));
  return parts;
}

/**
 * Whether `uri` matches a template of `parts` (its literal parts). The first part starts the
 * URI and the last ends it; each part between is taken where it first occurs with at least a
 * character for the expression before it, which leaves the most room for the rest, so the
 * first fit is the answer. A URI with a line break matches no template (a URI holds none).
 */
export function partsMatch(parts: readonly string[], uri: string): boolean {
  if (/[\n\r\u2028\u2029]/.test(uri)) return false;
  const first = parts[0]!;
  if (parts.length === 1) return uri === first;
  const last = parts[parts.length - 1]!;
  const end = uri.length - last.length;
  if (!uri.startsWith(first) || !uri.endsWith(last)) return false;
  let pos = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const at = uri.indexOf(parts[i]!, pos + 1);
    if (at < 0) return false;
    pos = at + parts[i]!.length;
    if (pos >= end) return false;
  }
  return pos < end;
}

/** Whether `uri` could come from `template` (RFC 6570, expressions as one or more characters). */
export function templateMatches(template: string, uri: string): boolean {
  return partsMatch(literalParts(template), uri);
}

/** Whether `uri` could come from the template of a `resources/templates/list` item. */
export function itemMatches(item: Item, uri: string): boolean {
  let parts = PARTS.get(item);
  if (!parts) PARTS.set(item, (parts = literalParts(String(item.uriTemplate))));
  return partsMatch(parts, uri);
}
