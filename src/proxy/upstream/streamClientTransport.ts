/**
 * StreamClientTransport: the stdio proxy's side of the bridge's stream link (see
 * mcpStream.ts). `start()` upgrades one HTTP connection and then exchanges newline-delimited
 * JSON-RPC on it, like a child's pipes: one write per message (coalesced per tick) and one
 * parse per message read.
 *
 * Failures are reported, never retried here: the ResilientTransportWrapper around it
 * reconnects and replays `initialize`. A refusal (401, 404, 503, or a server that does not
 * know the upgrade) rejects `start()` with the status and the server's message. A message
 * over the size cap is no failure of the link: it is skipped with a warning, and the request
 * it answers fails at once (jsonrpc/awaitedReplies.ts).
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { awaitedWrite } from '../common/awaitedWrite.js';
import { FrameDecoder, type OversizeFrame } from '../stdio/framing.js';
import { serverMessageLimit } from '../common/messageLimits.js';
import { AwaitedReplies, serverLimitText } from '../jsonrpc/awaitedReplies.js';
import { errorText, type Logger } from '../common/logger.js';
import { readText } from './readText.js';
import { describeConnectError, httpStatusError } from './upstreamErrors.js';
import { redactUrl } from '../config/redact.js';
import { MCP_STREAM_UPGRADE } from '../bridge/mcpStream.js';
import { parseRpcFrame } from '../jsonrpc/jsonRpc.js';

export interface StreamClientOptions {
  /** Sent with the upgrade request (for example Authorization). */
  headers?: Record<string, string>;
  logger?: Logger;
  /** Largest message accepted from the bridge (default 20 MiB, as for a child's stdout: common/messageLimits.ts). */
  maxMessageBytes?: number;
}

const ERROR_BODY_LIMIT = 2_000;

export class StreamClientTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private socket?: Socket;
  private request?: http.ClientRequest;
  private readonly decoder: FrameDecoder;
  private readonly maxBytes: number;
  private readonly awaited = new AwaitedReplies();
  private started = false;
  private closed = false;

  constructor(
    private readonly url: URL,
    private readonly opts: StreamClientOptions = {},
  ) {
    if (url.protocol !== 'http:') throw new Error(`the stream link needs an http: URL, not ${url.protocol}`);
    this.maxBytes = opts.maxMessageBytes ?? serverMessageLimit();
    this.decoder = new FrameDecoder({ mode: 'newline', maxMessageBytes: this.maxBytes });
  }

  /** Upgrades the connection; resolves once the bridge switched protocols. */
  start(): Promise<void> {
    if (this.started) return Promise.reject(new Error('StreamClientTransport already started'));
    this.started = true;
    return new Promise<void>((resolve, reject) => {
      const req = http.request(this.url, {
        method: 'GET',
        agent: false,
        headers: { ...this.opts.headers, Connection: 'Upgrade', Upgrade: MCP_STREAM_UPGRADE },
      });
      this.request = req;
      req.on('upgrade', (res, socket, head) => {
        this.request = undefined;
        if (res.headers.upgrade?.toLowerCase() !== MCP_STREAM_UPGRADE) {
          socket.destroy();
          reject(
            new Error(
              `${redactUrl(this.url.href)} switched to "${res.headers.upgrade ?? ''}", not ${MCP_STREAM_UPGRADE}`,
            ),
          );
          return;
        }
        if (this.closed) {
          socket.destroy();
          reject(new Error('transport closed'));
          return;
        }
        this.attach(socket, head);
        resolve();
      });
      req.on('response', (res) => {
        this.request = undefined;
        const status = res.statusCode ?? 0;
        readText(res, ERROR_BODY_LIMIT, (text) => reject(httpStatusError(status, this.url, text)));
      });
      req.on('error', (err) => {
        this.request = undefined;
        reject(this.closed ? new Error('transport closed') : describeConnectError(err, this.url));
      });
      req.end();
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const socket = this.socket;
    if (!socket || this.closed || !socket.writable) return Promise.reject(new Error('transport closed'));
    this.awaited.sent(message);
    // Rejected if the link closes before draining: the resilient wrapper then queues the
    // message for the next connection.
    return awaitedWrite(
      socket,
      `${JSON.stringify(message)}\n`,
      () => new Error('stream link closed before the message was written'),
    );
  }

  /** Ends the connection (which ends the bridge's session) and fires `onclose` once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.request?.destroy();
    const socket = this.socket;
    if (socket && !socket.destroyed) {
      socket.end();
      // A peer that does not close its side in time is cut.
      setTimeout(() => socket.destroy(), 1_000).unref();
    }
    this.onclose?.();
  }

  private attach(socket: Socket, head: Buffer): void {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onFrames(this.decoder.push(chunk)));
    socket.on('error', (err) => this.report(err));
    socket.on('close', () => {
      if (this.closed) return;
      this.report(new Error(`stream link to ${redactUrl(this.url.href)} closed by the bridge`));
      void this.close();
    });
    if (head.length > 0) this.onFrames(this.decoder.push(head));
  }

  private onFrames(frames: ReturnType<FrameDecoder['push']>): void {
    for (const frame of frames) {
      if (this.closed) return;
      if (frame.kind === 'oversize') {
        this.oversize(frame);
        continue;
      }
      const msg = parseRpcFrame(frame.body);
      if (!msg) {
        this.report(new Error('the bridge sent a line that is not JSON-RPC'));
        continue;
      }
      this.awaited.received(msg);
      this.onmessage?.(msg);
    }
  }

  private oversize(frame: OversizeFrame): void {
    const who = `the bridge at ${redactUrl(this.url.href)}`;
    this.opts.logger?.warn(
      `${who} sent a ${frame.bytes}-byte message (id ${frame.idHint ?? 'unknown'}), over the ${this.maxBytes}-byte limit; skipped`,
    );
    const { answers, reply } = this.awaited.oversize(
      frame.bytes,
      { id: frame.idHint, shape: frame.shape },
      { who, limit: serverLimitText(this.maxBytes) },
    );
    if (reply) this.send(reply).catch((err: Error) => this.report(err));
    for (const answer of answers) this.onmessage?.(answer);
  }

  private report(err: Error): void {
    if (this.closed) return;
    this.opts.logger?.debug(`stream link error: ${errorText(err)}`);
    this.onerror?.(err);
  }
}
