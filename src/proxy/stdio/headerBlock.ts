/**
 * The LSP-style header block of a Content-Length frame (framing.ts): the block being read,
 * what starts one, what one header line looks like, and the size past which it is malformed.
 */

/** A header block larger than this is malformed (real ones are under 100 bytes). */
export const MAX_HEADER_BLOCK_BYTES = 8192;
/** A line that starts a header block (tested on its first 32 bytes). */
export const HEADER_START_RE = /^content-(length|type)[ \t]*:/i;
/** One header line: its name (group 1) and value (group 2), surrounding blanks trimmed. */
export const HEADER_LINE_RE = /^([!#-'*+.0-9A-Z^-z|~-]+)[ \t]*:[ \t]*(.*?)[ \t]*$/;

/** A header block being read; `length` is -1 until a valid Content-Length, -2 if invalid. */
export interface HeaderBlock {
  lines: string[];
  bytes: number;
  length: number;
}

export const newHeaderBlock = (): HeaderBlock => ({ lines: [], bytes: 0, length: -1 });
