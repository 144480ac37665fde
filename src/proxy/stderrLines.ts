/**
 * A child's stderr as lines: bytes decoded as UTF-8 across chunk boundaries, split on `\n`
 * (a trailing `\r` dropped), an over-long "line" emitted in pieces instead of buffered
 * without end, the partial last line flushed at the end, and the last N lines kept.
 */
import { StringDecoder } from 'node:string_decoder';

/** A stderr "line" longer than this is emitted in pieces rather than buffered without end. */
export const MAX_STDERR_LINE_CHARS = 64 * 1024;

export class StderrLines {
  private readonly lines: string[] = [];
  private partial = '';
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
    this.partial += this.decoder.end();
    if (this.partial) this.take('\n');
  }

  private take(text: string): void {
    this.partial += text;
    const lines = this.partial.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.emit(line);
    while (this.partial.length > MAX_STDERR_LINE_CHARS) {
      this.emit(this.partial.slice(0, MAX_STDERR_LINE_CHARS));
      this.partial = this.partial.slice(MAX_STDERR_LINE_CHARS);
    }
  }

  private emit(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    this.lines.push(line);
    if (this.lines.length > this.keep) this.lines.shift();
    this.onLine(line);
  }
}
