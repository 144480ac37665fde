/**
 * An incremental Server-Sent Events parser for the client side: feed it decoded text as it
 * arrives, and it calls back once per complete event (on the blank line that ends it).
 * Only `event`, `data` and `id` matter to MCP; `retry` and comments are ignored.
 */

/** One dispatched event. `event` is `message` when the stream named none. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

export class SseLineParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id?: string;
  /** A chunk ended in `\r`: a `\n` starting the next chunk belongs to that line end. */
  private skipLf = false;

  constructor(private readonly onEvent: (e: SseEvent) => void) {}

  /** Adds decoded text (the caller decodes UTF-8 across chunk boundaries). */
  push(chunk: string): void {
    if (this.skipLf && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.skipLf = false;
    const text = this.buffer ? this.buffer + chunk : chunk;
    let start = 0;
    for (;;) {
      // The spec allows \r\n, \n and \r as line ends; searching both keeps one pass.
      const lf = text.indexOf('\n', start);
      const cr = text.indexOf('\r', start);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 === text.length) {
          this.skipLf = true;
          next = cr + 1;
        } else next = text[cr + 1] === '\n' ? cr + 2 : cr + 1;
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else break;
      this.line(text.slice(start, end));
      start = next;
    }
    this.buffer = start === text.length ? '' : text.slice(start);
  }

  /** The stream ended: an event without its closing blank line is dropped, per the spec. */
  end(): void {
    this.buffer = '';
    this.data = [];
    this.event = '';
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length) {
        this.onEvent({ event: this.event || 'message', data: this.data.join('\n'), id: this.id });
      }
      this.data = [];
      this.event = '';
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' comment */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
  }
}
