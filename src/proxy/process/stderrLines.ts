/**
 * A child's stderr as lines: bytes decoded as UTF-8 across chunk boundaries, split on `\n`
 * (a trailing `\r` dropped), the partial last line flushed at the end, and the last N lines
 * kept. A line longer than `MAX_STDERR_LINE_CHARS` is cut: its head is emitted at once with
 * a marker, the rest is skipped up to the next newline, so no line is ever buffered whole.
 */
import { StringDecoder } from 'node:string_decoder';

/** Longest stderr line kept and logged; longer ones are cut (marker appended). */
export const MAX_STDERR_LINE_CHARS = 2000;
/** Appended to a cut line. */
export const CUT_MARKER = `… [cut: line longer than ${MAX_STDERR_LINE_CHARS} characters]`;

export class StderrLines {
  private readonly lines: string[] = [];
  private partial = '';
  /** The current line was cut: skip up to its newline. */
  private skipping = false;
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly keep: number,
    private readonly onLine: (line: string) => void,
  ) {}

  /** The last lines kept, oldest first. */
  tail(): string[] {
    return [...this.lines];
  }

  push(chunk: Buffer): void {
    this.take(this.decoder.write(chunk));
  }

  /** Flushes a final line without a newline. */
  end(): void {
    this.take(this.decoder.end());
    if (this.partial) this.emit(this.partial, false);
    this.partial = '';
    this.skipping = false;
  }

  private take(text: string): void {
    let pos = 0;
    while (pos < text.length) {
      const nl = text.indexOf('\n', pos);
      const end = nl === -1 ? text.length : nl;
      if (this.skipping) {
        if (nl === -1) return;
        this.skipping = false;
      } else {
        // One character of slack for the '\r' of a '\r\n'.
        const room = MAX_STDERR_LINE_CHARS - this.partial.length;
        if (end - pos > room + 1) {
          this.emit(this.partial + text.slice(pos, pos + room), true);
          this.partial = '';
          this.skipping = nl === -1;
        } else if (nl === -1) {
          this.partial += text.slice(pos);
        } else {
          this.emit(this.partial + text.slice(pos, nl), false);
          this.partial = '';
        }
      }
      pos = end + 1;
    }
  }

  private emit(raw: string, cut: boolean): void {
    const line = cut ? raw + CUT_MARKER : raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    this.lines.push(line);
    if (this.lines.length > this.keep) this.lines.shift();
    this.onLine(line);
  }
}
