/**
 * The one incremental parser for `text/event-stream` bodies, used by every client side of
 * the project: the proxy's HTTP client (reply and GET streams), the runtime's `/events`
 * follower in src/main, and the status panel, which reads `/events` through `fetch()`
 * because EventSource cannot send an Authorization header and the bridge token must not
 * travel in a URL. Plain TypeScript: no Node or browser API.
 */

/** One dispatched server-sent event. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * Feed it decoded text chunks in order; it calls `onEvent` for each complete event.
 * Handles CRLF, LF and CR line ends (also split across chunks), multi-line `data`,
 * comment lines (`: keep-alive`) and a leading BOM, per the HTML spec's parsing rules.
 */
export class SseParser {
  private buffer = '';
  private eventType = '';
  private data: string[] = [];
  private id: string | undefined;
  private sawData = false;
  private first = true;
  /** A chunk ended with CR: a following LF belongs to that line end. */
  private pendingCr = false;

  constructor(private readonly onEvent: (e: SseEvent) => void) {}

  push(chunk: string): void {
    if (this.first && chunk.length > 0) {
      this.first = false;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    if (this.pendingCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.pendingCr = false;
    // Only the new chunk plus the unfinished tail is scanned, never the whole stream.
    let text = this.buffer + chunk;
    let start = 0;
    for (let i = this.buffer.length; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(text.slice(start, i));
      if (c === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          this.pendingCr = true;
        }
      }
      start = i + 1;
    }
    this.buffer = text.slice(start);
    text = '';
  }

  /** The stream ended: an event without its closing blank line is dropped, per the spec. */
  end(): void {
    this.buffer = '';
    this.pendingCr = false;
    this.eventType = '';
    this.data = [];
    this.sawData = false;
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) return; // comment, e.g. keep-alive
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.eventType = value;
    else if (field === 'data') {
      this.data.push(value);
      this.sawData = true;
    } else if (field === 'id' && !value.includes('\0')) this.id = value;
    // `retry` and unknown fields are ignored: reconnection is ours, not the browser's.
  }

  private dispatch(): void {
    if (this.sawData) {
      const e: SseEvent = { event: this.eventType || 'message', data: this.data.join('\n') };
      if (this.id !== undefined) e.id = this.id;
      this.onEvent(e);
    }
    this.eventType = '';
    this.data = [];
    this.sawData = false;
  }
}
