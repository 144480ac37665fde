/**
 * Awaited writes to a Writable that may go away: backpressure through one shared 'drain'
 * waiter, and a reader that left (EPIPE and friends) treated as the peer leaving, not as an
 * error: writes then resolve without writing and `peerGone` fires once.
 */
import type { Readable, Writable } from 'node:stream';
import { corkForTick } from '../common/corkForTick.js';
import { errorText } from '../common/logger.js';

/** Write errors meaning the reader is gone (ECONNRESET covers a socket as output). */
const PEER_GONE_CODES = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END', 'ECONNRESET']);

export function isPeerGone(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && PEER_GONE_CODES.has(code);
}

function ignoreError(): void {}

/** Keeps late 'error' events of a stream we stopped using from crashing the process. */
export function guardErrors(stream: Readable | Writable): void {
  if (!stream.listeners('error').includes(ignoreError)) stream.on('error', ignoreError);
}

export interface OutputWriterHooks {
  /** The reader went away (once). */
  peerGone(err: unknown): void;
  /** Any other write error (also rejected from `write`). */
  error(err: unknown): void;
}

export class OutputWriter {
  private gone = false;
  private watched = false;
  private drainWaiter?: Promise<void>;
  private releaseDrain?: () => void;
  /** Errors already reported through a write callback, so the 'error' event skips them. */
  private readonly reported = new WeakSet<object>();

  constructor(
    private readonly output: Writable,
    private readonly hooks: OutputWriterHooks,
  ) {}

  /** True once a write failed because the reader went away. */
  get peerGone(): boolean {
    return this.gone;
  }

  watch(): void {
    if (this.watched) return;
    this.watched = true;
    this.output.on('error', this.onOutputError);
  }

  /** Stops listening; later errors are swallowed. */
  unwatch(): void {
    if (!this.watched) return;
    this.output.off('error', this.onOutputError);
    guardErrors(this.output);
  }

  /** Resolves once written (after 'drain' under backpressure), or at once when the peer left. */
  write(text: string): Promise<void> {
    if (this.gone) return Promise.resolve();
    this.watch();
    return new Promise<void>((resolve, reject) => {
      let flushed = false;
      let drained = true;
      let settled = false;
      const fail = (err: unknown): void => {
        if (settled) return;
        settled = true;
        if (isPeerGone(err)) {
          this.onPeerGone(err);
          resolve();
        } else {
          if (err !== null && typeof err === 'object') this.reported.add(err);
          this.hooks.error(err);
          reject(err instanceof Error ? err : new Error(errorText(err)));
        }
      };
      let ok: boolean;
      try {
        corkForTick(this.output);
        ok = this.output.write(text, (err) => {
          if (err) return fail(err);
          flushed = true;
          if (drained && !settled) {
            settled = true;
            resolve();
          }
        });
      } catch (err) {
        fail(err);
        return;
      }
      if (!ok) {
        drained = false;
        void this.waitForDrain().then(() => {
          drained = true;
          if (flushed && !settled) {
            settled = true;
            resolve();
          }
        });
      }
    });
  }

  /** One shared waiter for all writes blocked on backpressure (no listener per write). */
  private waitForDrain(): Promise<void> {
    if (!this.drainWaiter) {
      this.drainWaiter = new Promise<void>((resolve) => {
        const done = (): void => {
          this.output.off('drain', done);
          this.output.off('close', done);
          this.drainWaiter = undefined;
          this.releaseDrain = undefined;
          resolve();
        };
        this.releaseDrain = done;
        this.output.on('drain', done);
        this.output.on('close', done);
      });
    }
    return this.drainWaiter;
  }

  private readonly onOutputError = (err: Error): void => {
    if (this.reported.has(err)) return;
    if (isPeerGone(err)) this.onPeerGone(err);
    else this.hooks.error(err);
  };

  private onPeerGone(err: unknown): void {
    if (this.gone) return;
    this.gone = true;
    this.releaseDrain?.();
    this.hooks.peerGone(err);
  }
}
