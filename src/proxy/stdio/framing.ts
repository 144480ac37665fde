/**
 * Dual framing for stdio JSON-RPC: newline-delimited JSON (what MCP specifies) and
 * LSP-style `Content-Length` headers (what some clients still send). The framing is
 * detected per message, so one stream may mix both.
 *
 * The decoder keeps arrived chunks in a list and scans only new bytes for a delimiter,
 * so a 10 MiB message costs one concatenation plus one UTF-8 decode. Messages over the
 * size cap are skipped without being buffered: the decoder keeps only a short head and a
 * short tail (to recover the id, which a writer may put first or last, and whether it is a
 * request or a response: idHint.ts) and counts the rest until the next frame boundary. A declared
 * Content-Length is not trusted blindly: while an oversize body is skipped, the start of a
 * frame that valid JSON can never contain (a `Content-Length: N` header line, or a line
 * opening with `{"`) ends the skip there, so a lying length cannot swallow later input.
 * Pushed chunks are referenced, not copied; callers must not mutate them afterwards.
 */

import { frameHint, type FrameHint, type IdHint } from './idHint.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../common/messageLimits.js';

// The LSP-style header block of a Content-Length frame: the block being read, what starts one,
// what one header line looks like, and the size past which it is malformed.
/** A header block larger than this is malformed (real ones are under 100 bytes). */
const MAX_HEADER_BLOCK_BYTES = 8192;
/** A line that starts a header block (tested on its first 32 bytes). */
const HEADER_START_RE = /^content-(length|type)[ \t]*:/i;
/** One header line: its name (group 1) and value (group 2), surrounding blanks trimmed. */
const HEADER_LINE_RE = /^([!#-'*+.0-9A-Z^-z|~-]+)[ \t]*:[ \t]*(.*?)[ \t]*$/;

/** A header block being read; `length` is -1 until a valid Content-Length, -2 if invalid. */
interface HeaderBlock {
  lines: string[];
  bytes: number;
  length: number;
}

const newHeaderBlock = (): HeaderBlock => ({ lines: [], bytes: 0, length: -1 });

export type Framing = 'newline' | 'content-length';

/** A message over the cap, skipped: its size, and what its kept head and tail tell (idHint.ts). */
export interface OversizeFrame {
  kind: 'oversize';
  framing: Framing;
  bytes: number;
  idHint?: IdHint;
  shape?: FrameHint['shape'];
}

export type DecodedFrame = { kind: 'message'; body: string; framing: Framing } | OversizeFrame;

export { DEFAULT_MAX_MESSAGE_BYTES };

const LF = 0x0a;
const CR = 0x0d;
/** Bytes kept from the start and from the end of a skipped message to find its id. */
const HEAD_BYTES = 512;
const TAIL_BYTES = 512;
/**
 * Inside a skipped Content-Length body: a complete Content-Length header line (group 1), or
 * a line opening a newline-framed object (group 2). JSON text has no raw CR or LF inside
 * strings, and no token starts with a letter, so neither occurs in a valid body.
 */
const RESYNC_RE = /(content-length[ \t]*:[ \t]*\d{1,15}[ \t]*\r?\n)|\n(\{[ \t]*")/i;
/** Latin-1 characters of skipped body kept to find a resync point split across chunks. */
const RESYNC_TAIL = 64;

type State = 'line' | 'headers' | 'body' | 'skipLine' | 'skipBody';

/** A message being skipped: its size so far and short copies of its head and its tail. */
interface Skipped {
  framing: Framing;
  bytes: number;
  head: Buffer[];
  headBytes: number;
  tail: Buffer;
  endsWithCR: boolean;
  /** The declared Content-Length of a skipped body. */
  declared?: number;
}

/** Splits a byte stream into JSON-RPC message bodies; see the module comment. */
export class FrameDecoder {
  private readonly max: number;
  /** Longest line held while looking for its end: a header line may exceed a tiny cap. */
  private readonly lineLimit: number;
  private readonly auto: boolean;
  private state: State = 'line';
  /** Pieces of the line or body being collected, and their total size. */
  private parts: Buffer[] = [];
  private partBytes = 0;
  private headers = newHeaderBlock();
  /** Body bytes still expected (body and skipBody states). */
  private remaining = 0;
  private skipped: Skipped = newSkipped('newline');
  /** The last skipped body bytes (latin1), for a resync point split across chunks. */
  private skipTail = '';

  constructor(opts: { maxMessageBytes?: number; mode?: 'auto' | 'newline' } = {}) {
    this.max = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.lineLimit = Math.max(this.max, MAX_HEADER_BLOCK_BYTES);
    this.auto = (opts.mode ?? 'auto') === 'auto';
  }

  /** Bytes held for the frame in progress (at most the cap, or 8 KiB if larger, plus one). */
  get bufferedBytes(): number {
    return this.partBytes;
  }

  /** Feeds bytes; returns the frames this chunk completed, in order. */
  push(chunk: Buffer): DecodedFrame[] {
    const out: DecodedFrame[] = [];
    let pos = 0;
    while (pos < chunk.length) {
      if (this.state === 'line' || this.state === 'headers') pos = this.readLine(chunk, pos, out);
      else if (this.state === 'body') pos = this.readBody(chunk, pos, out);
      else if (this.state === 'skipLine') pos = this.skipLine(chunk, pos, out);
      else pos = this.skipBody(chunk, pos, out);
    }
    return out;
  }

  /**
   * Ends the stream: a final newline-framed message without its newline is returned, a
   * message being skipped is reported as oversize, and an incomplete Content-Length
   * header or body is dropped (it can never be completed). The decoder is then reset.
   */
  end(): DecodedFrame[] {
    const out: DecodedFrame[] = [];
    if (this.state === 'line' && this.partBytes > 0) this.onLine(this.takeParts(), out);
    else if (this.state === 'skipLine' || this.state === 'skipBody') this.emitOversize(out);
    this.state = 'line';
    this.parts = [];
    this.partBytes = 0;
    this.headers = newHeaderBlock();
    return out;
  }

  private takeParts(last?: Buffer): Buffer {
    const parts = this.parts;
    this.parts = [];
    this.partBytes = 0;
    if (last) parts.push(last);
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  private readLine(chunk: Buffer, pos: number, out: DecodedFrame[]): number {
    const nl = chunk.indexOf(LF, pos);
    const piece = chunk.subarray(pos, nl === -1 ? chunk.length : nl);
    // One byte over the cap is allowed for a '\r' that may precede the '\n'; beyond that
    // the line is skipped without being concatenated or buffered any further.
    if (this.partBytes + piece.length > this.lineLimit + 1) {
      this.skipHeldLine(piece);
      if (nl !== -1) this.emitOversize(out);
    } else if (nl === -1) {
      this.parts.push(piece);
      this.partBytes += piece.length;
    } else {
      this.onLine(this.takeParts(piece), out);
    }
    return nl === -1 ? chunk.length : nl + 1;
  }

  /** Switches to skipping the current line (held parts plus `piece`), keeping only its head. */
  private skipHeldLine(piece: Buffer): void {
    const held = this.parts; // counted piece by piece, never concatenated
    this.parts = [];
    this.partBytes = 0;
    this.startSkip(this.state === 'headers' ? 'content-length' : 'newline', 'skipLine');
    for (const p of held) this.addSkipped(p);
    this.addSkipped(piece);
  }

  /** Handles one complete line (without its '\n') in the line or headers state. */
  private onLine(line: Buffer, out: DecodedFrame[]): void {
    const end = line.length > 0 && line[line.length - 1] === CR ? line.length - 1 : line.length;
    if (this.state === 'headers') return this.onHeaderLine(line, end, out);
    if (isBlank(line, end)) return;
    if (
      this.auto &&
      (line[0] === 0x43 || line[0] === 0x63) &&
      HEADER_START_RE.test(line.toString('latin1', 0, Math.min(end, 32)))
    ) {
      this.state = 'headers';
      return this.onHeaderLine(line, end, out);
    }
    if (end > this.max) {
      this.startSkip('newline', 'skipLine');
      this.addSkipped(line.subarray(0, end));
      return this.emitOversize(out);
    }
    out.push({ kind: 'message', body: line.toString('utf8', 0, end), framing: 'newline' });
  }

  private onHeaderLine(line: Buffer, end: number, out: DecodedFrame[]): void {
    if (end === 0) return this.endHeaders(out);
    const text = line.toString('latin1', 0, end);
    const m = HEADER_LINE_RE.exec(text);
    this.headers.bytes += end;
    if (!m || this.headers.bytes > MAX_HEADER_BLOCK_BYTES) {
      // Not a header after all: report the block as a bad message, then read this line afresh.
      this.emitBadHeaders(out);
      if (!m) this.onLine(line, out);
      return;
    }
    this.headers.lines.push(text);
    if (m[1]!.toLowerCase() === 'content-length') this.headers.length = /^\d{1,15}$/.test(m[2]!) ? Number(m[2]) : -2;
  }

  private endHeaders(out: DecodedFrame[]): void {
    const length = this.headers.length;
    if (length < 0) return this.emitBadHeaders(out);
    this.headers = newHeaderBlock();
    this.remaining = length;
    if (length > this.max) {
      this.startSkip('content-length', 'skipBody');
      this.skipped.declared = length;
      this.skipTail = '';
    } else if (length === 0) {
      this.state = 'line';
      out.push({ kind: 'message', body: '', framing: 'content-length' });
    } else {
      this.state = 'body';
    }
  }

  /** A header block without a usable Content-Length becomes a message that fails to parse. */
  private emitBadHeaders(out: DecodedFrame[]): void {
    out.push({ kind: 'message', body: this.headers.lines.join('\r\n'), framing: 'content-length' });
    this.headers = newHeaderBlock();
    this.state = 'line';
  }

  private readBody(chunk: Buffer, pos: number, out: DecodedFrame[]): number {
    const take = Math.min(this.remaining, chunk.length - pos);
    this.remaining -= take;
    const piece = chunk.subarray(pos, pos + take);
    if (this.remaining > 0) {
      this.parts.push(piece);
      this.partBytes += take;
    } else {
      this.state = 'line';
      out.push({ kind: 'message', body: this.takeParts(piece).toString('utf8'), framing: 'content-length' });
    }
    return pos + take;
  }

  private skipLine(chunk: Buffer, pos: number, out: DecodedFrame[]): number {
    const nl = chunk.indexOf(LF, pos);
    this.addSkipped(chunk.subarray(pos, nl === -1 ? chunk.length : nl));
    if (nl === -1) return chunk.length;
    this.emitOversize(out);
    return nl + 1;
  }

  private skipBody(chunk: Buffer, pos: number, out: DecodedFrame[]): number {
    const take = Math.min(this.remaining, chunk.length - pos);
    const piece = chunk.subarray(pos, pos + take);
    const text = this.skipTail + piece.toString('latin1');
    const m = RESYNC_RE.exec(text);
    if (m) {
      // The next frame starts at `at` (text offsets); bytes of it already counted in the
      // previous chunk's tail are handed back to the line being read.
      const at = m[1] !== undefined ? m.index : m.index + m[0].length - m[2]!.length;
      const inPiece = Math.max(0, at - this.skipTail.length);
      const carried = at < this.skipTail.length ? Buffer.from(this.skipTail.slice(at), 'latin1') : undefined;
      this.addSkipped(piece.subarray(0, inPiece));
      this.skipTail = '';
      this.emitOversize(out);
      if (carried) {
        this.parts.push(carried);
        this.partBytes += carried.length;
      }
      return pos + inPiece;
    }
    this.skipTail = text.slice(-RESYNC_TAIL);
    this.addSkipped(piece);
    this.remaining -= take;
    if (this.remaining === 0) this.emitOversize(out);
    return pos + take;
  }

  private startSkip(framing: Framing, state: 'skipLine' | 'skipBody'): void {
    this.state = state;
    this.headers = newHeaderBlock();
    this.skipped = newSkipped(framing);
  }

  /**
   * Counts skipped bytes; copies at most HEAD_BYTES of the start and TAIL_BYTES of the end,
   * so the skipped chunks are not retained.
   */
  private addSkipped(buf: Buffer): void {
    const s = this.skipped;
    if (buf.length === 0) return;
    s.bytes += buf.length;
    s.endsWithCR = buf[buf.length - 1] === CR;
    if (buf.length >= TAIL_BYTES) s.tail = Buffer.from(buf.subarray(buf.length - TAIL_BYTES));
    else {
      const joined = Buffer.concat([s.tail, buf]);
      s.tail = joined.length > TAIL_BYTES ? joined.subarray(joined.length - TAIL_BYTES) : joined;
    }
    if (s.headBytes >= HEAD_BYTES) return;
    const piece = Buffer.from(buf.subarray(0, HEAD_BYTES - s.headBytes));
    s.head.push(piece);
    s.headBytes += piece.length;
  }

  private emitOversize(out: DecodedFrame[]): void {
    const s = this.skipped;
    // The '\r' of a line's '\r\n' is framing, not message.
    const bytes = s.declared ?? (this.state === 'skipLine' && s.endsWithCR ? s.bytes - 1 : s.bytes);
    const frame: OversizeFrame = { kind: 'oversize', framing: s.framing, bytes };
    const hint = frameHint(Buffer.concat(s.head).toString('utf8'), s.tail.toString('utf8'));
    if (hint.id !== undefined) frame.idHint = hint.id;
    if (hint.shape !== undefined) frame.shape = hint.shape;
    out.push(frame);
    this.state = 'line';
    this.remaining = 0;
    this.skipped = newSkipped('newline');
  }
}

function newSkipped(framing: Framing): Skipped {
  return { framing, bytes: 0, head: [], headBytes: 0, tail: Buffer.alloc(0), endsWithCR: false };
}

/** Whether the first `end` bytes are only spaces, tabs and '\r' (stops at the first other byte). */
function isBlank(line: Buffer, end: number): boolean {
  for (let i = 0; i < end; i++) {
    const b = line[i];
    if (b !== 0x20 && b !== 0x09 && b !== CR) return false;
  }
  return true;
}

/** Encodes one message; the Content-Length is the body's UTF-8 byte count. */
export function encodeFrame(json: string, framing: Framing): string {
  if (framing === 'newline') return json + '\n';
  return `Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}`;
}
