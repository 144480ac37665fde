/**
 * A minimal Server-Sent Events writer over a Node `ServerResponse`, with keep-alive
 * comments, used by `/events`, and the keep-alive ticker alone for streams whose headers
 * and events someone else writes (the SDK's legacy SSE transport).
 */
import type { ServerResponse } from 'node:http';

/** Default interval between keep-alive comments. */
export const DEFAULT_SSE_KEEP_ALIVE_MS = 15_000;

/**
 * Headers for every SSE response: no caching, and `X-Accel-Buffering: no` so a reverse
 * proxy (nginx) forwards each event at once instead of buffering the stream.
 */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
  'X-Content-Type-Options': 'nosniff',
};

function writable(res: ServerResponse): boolean {
  return res.headersSent && !res.writableEnded && !res.destroyed;
}

/**
 * Writes `: keepalive` comments to `res` every `intervalMs` once its headers are out, so
 * idle timeouts in proxies and clients do not cut a quiet stream. The timer is unref'd
 * (it never keeps the process alive) and stops by itself when the response closes.
 * Returns a function that stops it. `intervalMs <= 0` disables keep-alive.
 */
export function startKeepAlive(res: ServerResponse, intervalMs: number): () => void {
  if (!Number.isFinite(intervalMs) || intervalMs <= 0) return () => {};
  const timer = setInterval(() => {
    if (res.writableEnded || res.destroyed) {
      clearInterval(timer);
      return;
    }
    // Before the owner has written the headers a write would send default ones.
    if (writable(res)) res.write(': keepalive\n\n');
  }, intervalMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  res.once('close', stop);
  return stop;
}

/** Formats one SSE event; multi-line data is split into several `data:` lines. */
export function formatEvent(event: string | undefined, data: string, id?: string): string {
  let out = '';
  if (event) out += `event: ${event}\n`;
  if (id !== undefined) out += `id: ${id}\n`;
  for (const line of data.split(/\r?\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

export interface EventStreamOptions {
  /** Keep-alive comment interval; default 15 s, `0` disables. */
  keepAliveMs?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** One open SSE response. */
export class EventStream {
  private stopKeepAlive: () => void = () => {};
  private readonly closeListeners: Array<() => void> = [];
  private isClosed = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly options: EventStreamOptions = {},
  ) {
    res.once('close', () => this.markClosed());
  }

  /** Sends the 200 and the headers at once, so the client sees the stream open. */
  open(): void {
    if (this.res.headersSent) throw new Error('EventStream already open');
    this.res.writeHead(200, { ...SSE_HEADERS, ...this.options.headers });
    this.res.flushHeaders();
    // Events are small and latency matters more than packet count.
    this.res.socket?.setNoDelay(true);
    this.stopKeepAlive = startKeepAlive(this.res, this.options.keepAliveMs ?? DEFAULT_SSE_KEEP_ALIVE_MS);
  }

  /** Sends an event whose data is `data` serialised as JSON. Returns false once closed. */
  sendJson(event: string, data: unknown): boolean {
    return this.send(event, JSON.stringify(data));
  }

  /** Sends an event with raw text data. Returns false once closed. */
  send(event: string | undefined, data: string, id?: string): boolean {
    if (this.isClosed || !writable(this.res)) return false;
    this.res.write(formatEvent(event, data, id));
    return true;
  }

  /** Sends an SSE comment (ignored by clients). */
  comment(text: string): boolean {
    if (this.isClosed || !writable(this.res)) return false;
    this.res.write(`: ${text.replace(/\r?\n/g, ' ')}\n\n`);
    return true;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Calls `cb` once when the stream ends, whichever side ended it. */
  onClose(cb: () => void): void {
    if (this.isClosed) cb();
    else this.closeListeners.push(cb);
  }

  /** Ends the response (the client sees a clean end of stream). */
  close(): void {
    if (!this.res.writableEnded) this.res.end();
    this.markClosed();
  }

  private markClosed(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.stopKeepAlive();
    for (const cb of this.closeListeners.splice(0)) {
      try {
        cb();
      } catch {
        // A listener's failure must not keep the others from running.
      }
    }
  }
}
