/**
 * One open file of the log tail (src/main/logs/logTail.ts): where reading stands in it, and the
 * decoders of its bytes. Every read is positional, from the saved offset up to a size taken
 * by the caller, so the order of watcher events never makes the tail skip or repeat bytes.
 * The last {@link SIGNATURE_BYTES} bytes before the offset are kept and compared on every
 * pass: a file truncated and grown back past the offset has a size that hides it, not its bytes.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { EntryAssembler, LineDecoder, type LogEntry } from './logEntryParser.js';
import { lastLineStart, readAt } from './logFileReads.js';

/** How many bytes before the offset are re-checked on every pass (truncate-then-regrow). */
export const SIGNATURE_BYTES = 32;

/** The read state of one file: offset, truncation signature, partial line and pending entry. */
export class LogCursor {
  readonly ino: bigint;
  readonly dev: bigint;
  offset = 0;
  /** The last bytes before `offset`, to detect a truncation the size alone does not show. */
  private signature: Buffer = Buffer.alloc(0);
  readonly lines = new LineDecoder();
  readonly entries: EntryAssembler;
  /** When bytes last arrived (the pending entry is delivered `entryFlushMs` after that). */
  lastDataAt = Date.now();
  /** When the path stopped naming this file (renamed away, deleted, replaced). */
  retiredAt: number | undefined;

  private constructor(
    private readonly fh: FileHandle,
    st: { ino: bigint; dev: bigint },
    onEntry: (entry: LogEntry) => void,
  ) {
    this.ino = st.ino;
    this.dev = st.dev;
    this.entries = new EntryAssembler(onEntry);
  }

  /**
   * Opens `path` for reading, from its start or, with `atEnd`, from the start of its
   * unfinished last line (so that line is delivered once complete, and nothing before it).
   * `chunkBytes` bounds how far back that line is looked for.
   */
  static async open(
    path: string,
    atEnd: boolean,
    onEntry: (entry: LogEntry) => void,
    chunkBytes: number,
  ): Promise<LogCursor> {
    const fh = await open(path, 'r');
    const st = await fh.stat({ bigint: true });
    const c = new LogCursor(fh, st, onEntry);
    if (atEnd) c.offset = await lastLineStart(fh, Number(st.size), chunkBytes);
    c.signature = await readAt(fh, Math.max(0, c.offset - SIGNATURE_BYTES), Math.min(c.offset, SIGNATURE_BYTES));
    return c;
  }

  /** True when `st` (a stat of the tailed path) is still this file. */
  isSameFileAs(st: { ino: bigint; dev: bigint } | undefined): boolean {
    return st !== undefined && st.ino === this.ino && st.dev === this.dev;
  }

  /**
   * The file's size now; when the file was truncated (size below the offset, or the bytes
   * before the offset changed) it first ends what was read and restarts at 0.
   */
  async sizeAfterTruncationCheck(): Promise<number> {
    const size = Number((await this.fh.stat({ bigint: true })).size);
    const len = this.signature.length;
    if (size < this.offset || !(await readAt(this.fh, this.offset - len, len)).equals(this.signature))
      this.restartAtZero();
    return size;
  }

  /** Reads from the offset up to `limit` (or the end of the file) through `buf`, decoding as it goes. */
  async readUpTo(limit: number, buf: Buffer): Promise<void> {
    while (this.offset < limit) {
      const want = Math.min(buf.length, limit - this.offset);
      const { bytesRead } = await this.fh.read(buf, 0, want, this.offset);
      if (bytesRead === 0) break;
      this.offset += bytesRead;
      const chunk = buf.subarray(0, bytesRead);
      this.signature =
        bytesRead >= SIGNATURE_BYTES
          ? Buffer.from(chunk.subarray(bytesRead - SIGNATURE_BYTES))
          : Buffer.concat([this.signature, chunk]).subarray(-SIGNATURE_BYTES);
      this.lastDataAt = Date.now();
      for (const line of this.lines.push(chunk)) this.entries.push(line);
    }
  }

  /** Delivers the held text: the unterminated last line (now final) and the pending entry. */
  endText(): void {
    const rest = this.lines.end();
    if (rest !== undefined) this.entries.push(rest);
    this.entries.flush();
  }

  /** Ends the held text and closes the file. */
  async finish(): Promise<void> {
    this.endText();
    await this.fh.close();
  }

  /** Closes the file without delivering anything more. */
  close(): Promise<void> {
    return this.fh.close();
  }

  /** The file was truncated: end what was read (its partial line is final) and read from 0. */
  private restartAtZero(): void {
    this.endText();
    this.offset = 0;
    this.signature = Buffer.alloc(0);
  }
}
