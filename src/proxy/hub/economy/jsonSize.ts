/**
 * Sizes of values as JSON text in UTF-8 bytes, and the longest start of a string whose JSON
 * fits a number of bytes: how the result cut (resultCut.ts) and the pages of a kept result
 * (resultPages.ts) fill their room exactly, cutting a text only between characters.
 */

/** UTF-8 bytes of `value` as JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/** Bytes the UTF-16 unit `c` takes inside a JSON string (a surrogate pair is counted on its high half). */
function unitBytes(c: number): number {
  if (c === 0x22 || c === 0x5c) return 2; // \" and \\
  if (c < 0x20) return c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  return 3;
}

/**
 * The longest start of `text` whose JSON string body (without its quotes) takes at most
 * `room` bytes, cut between characters (never inside a surrogate pair): its length in UTF-16
 * units and its bytes.
 */
export function fittingPrefix(text: string, room: number): { length: number; bytes: number } {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    let width = 1;
    let b: number;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      // A pair is four bytes; a lone surrogate is written as a \uXXXX escape.
      if (next >= 0xdc00 && next <= 0xdfff) {
        width = 2;
        b = 4;
      } else b = 6;
    } else if (c >= 0xdc00 && c <= 0xdfff) b = 6;
    else b = unitBytes(c);
    if (bytes + b > room) break;
    bytes += b;
    i += width;
  }
  return { length: i, bytes };
}

/** `n` with thousands separators (`2,097,152`), the same in every locale. */
export function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
