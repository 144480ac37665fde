// src/proxy/stdio/: the downstream stdio endpoint (framing, size cap, idle timeout, the writer).
/**
 * The proxy's stdio endpoint: an SDK `Transport` over any Readable/Writable pair
 * (process.stdin/stdout by default) that speaks both newline and `Content-Length`
 * framing, answering each request in the framing it arrived in.
 *
 * Broken input never crashes it: invalid JSON gets -32700, non-JSON-RPC values,
 * requests whose id is not a string or a number (null included) and batches get -32600
 * (with id null), and a message over the size cap gets -32600 naming the size and
 * the cap, after which the stream is served on; when that message was the client's answer
 * to one of our requests, the request fails at once too (jsonrpc/awaitedReplies.ts).
 * Stdout going away (EPIPE and friends) is the peer leaving, not an error: the transport
 * closes quietly and `closedByPeer` becomes true.
 */
import { noteWireBytes } from '../common/wireBytes.js';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  FrameDecoder,
  encodeFrame,
  type DecodedFrame,
  type Framing,
  type OversizeFrame,
} from './framing.js';
import { Logger, errorText } from '../common/logger.js';
import { OutputWriter, guardErrors, isPeerGone } from './outputWriter.js';
import { ErrorCode, isResponse } from '../jsonrpc/jsonRpc.js';
import { AwaitedReplies } from '../jsonrpc/awaitedReplies.js';

/** Default idle timeout: no inbound message for this long closes the transport. */
export const DEFAULT_IDLE_TIMEOUT_MS = 600_000;

const MAX_TIMER_MS = 2 ** 31 - 1;
/** Requests remembered for reply framing; beyond this the oldest are forgotten. */
const MAX_TRACKED_REQUESTS = 10_000;
/** Bad frames logged at warn level before the rest go to debug. */
const MAX_WARNED_BAD_FRAMES = 10;

export interface StdioServerTransportOptions {
  input?: Readable;
  output?: Writable;
  maxMessageBytes?: number;
  /** No inbound message for this long destroys the input and closes; 0 disables. */
  idleTimeoutMs?: number;
  logger?: Logger;
}

type Id = string | number;

function validId(id: unknown): id is Id {
  return typeof id === 'string' || typeof id === 'number';
}

/** Dual-framing stdio server transport; see the module comment. */
export class StdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  private readonly input: Readable;
  private readonly out: OutputWriter;
  private readonly maxBytes: number;
  private readonly idleMs: number;
  private readonly logger: Logger;
  private readonly decoder: FrameDecoder;
  private readonly requestFraming = new Map<Id, Framing>();
  /** Further requests received under an id still in flight (each gets its own answer). */
  private readonly duplicateIds = new Map<Id, number>();
  /** Our requests to the client (sampling, elicitation, roots) awaiting its answer. */
  private readonly awaited = new AwaitedReplies();
  private framing: Framing = 'newline';
  private started = false;
  private closed = false;
  private idleTimer?: NodeJS.Timeout;
  private badFrames = 0;

  constructor(opts: StdioServerTransportOptions = {}) {
    this.input = opts.input ?? process.stdin;
    this.out = new OutputWriter(opts.output ?? process.stdout, {
      peerGone: (err) => this.onPeerGone(err),
      error: (err) => this.report(err),
    });
    this.maxBytes = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.idleMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.logger = opts.logger ?? Logger.create('stdio-server');
    this.decoder = new FrameDecoder({ maxMessageBytes: this.maxBytes });
  }

  /** Framing of the client's most recent message ('newline' before any input). */
  get lastFraming(): Framing {
    return this.framing;
  }

  /** True once a write failed because the reader went away (EPIPE and the like). */
  get closedByPeer(): boolean {
    return this.out.peerGone;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('StdioServerTransport already started');
    if (this.closed) throw new Error('StdioServerTransport is closed');
    this.started = true;
    this.out.watch();
    this.input.on('data', this.onData);
    this.input.on('end', this.onInputEnd);
    this.input.on('close', this.onInputEnd);
    this.input.on('error', this.onInputError);
    if (this.idleMs > 0) {
      // Node fires a delay above 2^31-1 ms at once (TimeoutOverflowWarning): clamp it (~24.8 days).
      this.idleTimer = setTimeout(this.onIdle, Math.min(this.idleMs, MAX_TIMER_MS));
      this.idleTimer.unref();
    }
  }

  /**
   * Writes one message; a reply goes out in the framing of its request, anything else in
   * the client's last framing. Resolves once written (after 'drain' under backpressure).
   * When the peer is gone (EPIPE, destroyed or ended output) it resolves without writing
   * and the transport closes; other write errors go to `onerror` and reject. After
   * `close()` writes are still attempted, so a client that half-closed its side still
   * gets its answers.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    this.awaited.sent(message);
    const frame = encodeFrame(JSON.stringify(message), this.framingFor(message));
    noteWireBytes(message, Buffer.byteLength(frame));
    return this.out.write(frame);
  }

  /** Stops reading, detaches from the streams and fires `onclose` once. Idempotent. */
  async close(): Promise<void> {
    this.shutdown();
  }

  private framingFor(message: JSONRPCMessage): Framing {
    const m = message as { id?: unknown; method?: unknown };
    if (isResponse(message) && validId(m.id)) {
      const f = this.requestFraming.get(m.id);
      if (f !== undefined) {
        // A second request under an id in flight gets its own answer (a refusal) first.
        const extra = this.duplicateIds.get(m.id);
        if (extra) {
          if (extra > 1) this.duplicateIds.set(m.id, extra - 1);
          else this.duplicateIds.delete(m.id);
        } else this.requestFraming.delete(m.id);
        return f;
      }
    }
    return this.framing;
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const frames = this.decoder.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    for (const frame of frames) {
      if (this.closed) return;
      this.handleFrame(frame);
    }
  };

  private readonly onInputEnd = (): void => {
    if (this.closed) return;
    for (const frame of this.decoder.end()) this.handleFrame(frame);
    this.logger.debug('input ended; closing');
    this.shutdown();
    this.inputEnded();
  };

  /**
   * The client ended its side (or it failed, or idled out); the transport has just closed,
   * but replies to requests already received may still be sent. For subclasses whose
   * output must be ended too (a socket), once nothing is left to answer.
   */
  protected inputEnded(): void {}

  /** Requests received and not answered yet (nor cancelled). */
  protected get awaitingReplies(): number {
    let n = this.requestFraming.size;
    for (const extra of this.duplicateIds.values()) n += extra;
    return n;
  }

  private readonly onInputError = (err: Error): void => {
    if (this.closed) return;
    if (isPeerGone(err)) this.logger.debug(`input closed by peer: ${errorText(err)}`);
    else this.report(err);
    this.onInputEnd();
  };

  private readonly onIdle = (): void => {
    if (this.closed) return;
    this.logger.warn(`no message for ${this.idleMs} ms; closing stdin`);
    this.input.destroy();
    this.onInputEnd();
  };

  private handleFrame(frame: DecodedFrame): void {
    this.framing = frame.framing;
    this.idleTimer?.refresh();
    if (frame.kind === 'oversize') return this.oversize(frame);
    let parsed: unknown;
    try {
      parsed = JSON.parse(frame.body);
    } catch {
      const what = `invalid JSON (${Buffer.byteLength(frame.body)} bytes)`;
      return this.badFrame(frame.framing, null, ErrorCode.ParseError, 'Parse error: invalid JSON', what);
    }
    if (Array.isArray(parsed)) {
      return this.badFrame(
        frame.framing,
        null,
        ErrorCode.InvalidRequest,
        'Invalid Request: JSON-RPC batches are not supported by MCP',
        'batch',
      );
    }
    const msg = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
    const isRequestOrNotification = typeof msg.method === 'string';
    if (msg.jsonrpc !== '2.0' || !(isRequestOrNotification || ('id' in msg && ('result' in msg || 'error' in msg)))) {
      const id = validId(msg.id) ? msg.id : null;
      return this.badFrame(
        frame.framing,
        id,
        ErrorCode.InvalidRequest,
        'Invalid Request: not a JSON-RPC 2.0 message',
        'not JSON-RPC 2.0',
      );
    }
    // MCP ids are strings or numbers, never null; an id of any other type is not echoed back.
    if (isRequestOrNotification && 'id' in msg && !validId(msg.id)) {
      return this.badFrame(
        frame.framing,
        null,
        ErrorCode.InvalidRequest,
        'Invalid Request: id must be a string or a number',
        'invalid id',
      );
    }
    if (isRequestOrNotification) this.track(msg, frame.framing);
    if ('method' in msg && 'id' in msg) noteWireBytes(msg, Buffer.byteLength(frame.body));
    else this.awaited.received(parsed as JSONRPCMessage);
    try {
      this.onmessage?.(parsed as JSONRPCMessage);
    } catch (err) {
      this.report(err);
    }
  }

  /**
   * A message over the cap. The client is told, by the message's id unless it is a reply: the
   * id of a reply is ours, not one of the client's requests. A reply also fails the request it
   * answers (all of ours awaiting an answer when its id cannot be read).
   */
  private oversize(frame: OversizeFrame): void {
    const text = `message of ${frame.bytes} bytes exceeds the ${this.maxBytes}-byte limit; skipped`;
    const reply = frame.shape === 'reply';
    this.badFrame(
      frame.framing,
      reply ? null : (frame.idHint ?? null),
      ErrorCode.InvalidRequest,
      `Invalid Request: ${text}`,
      text,
    );
    if (!reply) return;
    const limit = `the ${this.maxBytes}-byte limit (--max-message-bytes)`;
    const { answers } = this.awaited.oversize(
      frame.bytes,
      { id: frame.idHint, shape: 'reply' },
      { who: 'the client', limit },
    );
    for (const answer of answers) {
      try {
        this.onmessage?.(answer);
      } catch (err) {
        this.report(err);
      }
    }
  }

  /** Answers a frame that cannot be delivered, in its own framing, and logs it (quietly after a few). */
  private badFrame(framing: Framing, id: Id | null, code: number, message: string, what: string): void {
    this.badFrames++;
    this.logger.log(this.badFrames <= MAX_WARNED_BAD_FRAMES ? 'warn' : 'debug', `bad inbound frame: ${what}`);
    const reply = { jsonrpc: '2.0', id, error: { code, message } };
    // Failures are already reported (or mean the peer left); nothing more to do here.
    this.out.write(encodeFrame(JSON.stringify(reply), framing)).catch(() => {});
  }

  /** Remembers a request's framing for its reply; a cancelled request may get none. */
  private track(msg: Record<string, unknown>, framing: Framing): void {
    if (validId(msg.id)) {
      if (this.requestFraming.size >= MAX_TRACKED_REQUESTS) {
        const oldest = this.requestFraming.keys().next().value as Id;
        this.requestFraming.delete(oldest);
        this.duplicateIds.delete(oldest);
      }
      if (this.requestFraming.has(msg.id)) this.duplicateIds.set(msg.id, (this.duplicateIds.get(msg.id) ?? 0) + 1);
      else this.requestFraming.set(msg.id, framing);
    } else if (msg.method === 'notifications/cancelled') {
      const requestId = (msg.params as { requestId?: unknown } | undefined)?.requestId;
      if (validId(requestId)) {
        this.requestFraming.delete(requestId);
        this.duplicateIds.delete(requestId);
      }
    }
  }

  private onPeerGone(err: unknown): void {
    this.logger.info(`output closed by peer (${(err as NodeJS.ErrnoException).code ?? errorText(err)}); closing`);
    this.shutdown();
  }

  private report(err: unknown): void {
    const error = err instanceof Error ? err : new Error(errorText(err));
    this.logger.error(`stdio transport error: ${error.message}`);
    try {
      this.onerror?.(error);
    } catch {
      // A throwing onerror must not break the read loop.
    }
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.started) {
      this.input.off('data', this.onData);
      this.input.off('end', this.onInputEnd);
      this.input.off('close', this.onInputEnd);
      this.input.off('error', this.onInputError);
      // Late errors (EPIPE on a reply still in flight, EIO on stdin) must not crash the process.
      guardErrors(this.input);
      if (!this.input.destroyed && this.input.listenerCount('data') === 0) this.input.pause();
    }
    this.out.unwatch();
    try {
      this.onclose?.();
    } catch (err) {
      this.logger.error(`onclose threw: ${errorText(err)}`);
    }
  }
}
