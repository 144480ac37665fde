/**
 * Request bodies (read with a size cap, parsed once) and the small JSON responses the
 * bridge sends itself (errors, /health, /status).
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCode } from '../jsonrpc/jsonRpc.js';

/** Default cap on a request body: 10 MiB, as for the stdio transport. */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * After a 413, how much more of the refused body is read and dropped. A client that writes
 * its whole body before reading (fetch does) gets a reset instead of the 413 if the server
 * stops reading, so the rest is drained, within this bound and DRAIN_TIMEOUT_MS.
 */
export const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;
const DRAIN_TIMEOUT_MS = 10_000;

/** Default time for a request's head, and again for its body, to arrive. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Why a body could not be read. */
export type BodyFailure = 'too-large' | 'aborted' | 'bad-json' | 'timeout';

/**
 * The `node:http` server options behind the body deadline: a head must arrive within
 * `bodyTimeoutMs` (`headersTimeout`), and Node cuts any request not complete after twice
 * that (`requestTimeout`: a backstop for bodies nobody reads; `readBody` answers first).
 * Only the reading of a request counts: responses (SSE streams, long calls) and upgraded
 * connections are not timed. 0 turns both off.
 */
export function requestDeadlines(bodyTimeoutMs: number): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
} {
  if (!(bodyTimeoutMs > 0)) return { headersTimeout: 0, requestTimeout: 0, connectionsCheckingInterval: 30_000 };
  return {
    headersTimeout: bodyTimeoutMs,
    requestTimeout: Math.min(2 * bodyTimeoutMs, 2 ** 31 - 1),
    // How often Node looks for overdue requests: a tenth of the deadline, within 50 ms..5 s.
    connectionsCheckingInterval: Math.min(5_000, Math.max(50, Math.floor(bodyTimeoutMs / 10))),
  };
}

export type BodyResult = { ok: true; value: unknown } | { ok: false; reason: BodyFailure };

/**
 * Reads the whole body, refusing a declared `Content-Length` over `maxBytes` before
 * reading anything and stopping as soon as more than `maxBytes` arrived otherwise.
 * Chunks are kept as a list and joined once, so a 10 MiB body costs one copy.
 */
export function readBody(
  req: IncomingMessage,
  maxBytes: number,
  timeoutMs = 0,
): Promise<{ ok: true; bytes: Buffer } | { ok: false; reason: BodyFailure }> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discardBody(req);
    return Promise.resolve({ ok: false, reason: 'too-large' });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    // A body that never finishes: what arrived is dropped, and the caller answers 408.
    const timer = timeoutMs > 0 ? setTimeout(() => finish({ ok: false, reason: 'timeout' }), timeoutMs) : undefined;
    const finish = (r: { ok: true; bytes: Buffer } | { ok: false; reason: BodyFailure }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      resolve(r);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        // Stop buffering; the rest is read and dropped (bounded) while the 413 goes out.
        finish({ ok: false, reason: 'too-large' });
        discardBody(req);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () =>
      finish({ ok: true, bytes: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received) }),
    );
    req.once('error', () => finish({ ok: false, reason: 'aborted' }));
    req.once('close', () => finish({ ok: false, reason: 'aborted' }));
  });
}

/**
 * Reads and drops the rest of a refused body so the client, still sending, gets to read
 * the answer; cuts the connection past DRAIN_LIMIT_BYTES or DRAIN_TIMEOUT_MS.
 */
export function discardBody(req: IncomingMessage, limitBytes = DRAIN_LIMIT_BYTES): void {
  let dropped = 0;
  const stop = () => {
    clearTimeout(timer);
    req.off('data', onData);
  };
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > limitBytes) {
      stop();
      req.destroy();
    }
  };
  const timer = setTimeout(() => {
    stop();
    req.destroy();
  }, DRAIN_TIMEOUT_MS);
  timer.unref();
  req.on('data', onData);
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}

/** Reads and parses a JSON body. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number, timeoutMs = 0): Promise<BodyResult> {
  const body = await readBody(req, maxBytes, timeoutMs);
  if (!body.ok) return body;
  try {
    return { ok: true, value: JSON.parse(body.bytes.toString('utf8')) };
  } catch {
    return { ok: false, reason: 'bad-json' };
  }
}

/** Headers sent with every response the bridge writes itself. */
const BASE_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' } as const;

/** Sends `value` as JSON with `status`; a no-op when the response already started. */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.writableEnded) return;
  const body = JSON.stringify(value);
  res.writeHead(status, {
    ...BASE_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/** Sends a JSON-RPC error object (`id: null`), the shape MCP clients expect from transport errors. */
export function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

/**
 * Answers a body that could not be read: 413 (the rest of the body is drained meanwhile,
 * see `discardBody`), 400 with a JSON-RPC parse error for bad JSON, 408 for a body not
 * received in time (the connection is then closed: the rest of that body is not waited
 * for). An aborted request gets nothing: its client is gone.
 */
export function sendBodyFailure(res: ServerResponse, reason: BodyFailure, maxBytes: number): void {
  if (reason === 'too-large') {
    sendJsonRpcError(
      res,
      413,
      ErrorCode.ServerError,
      `Payload Too Large: request body must not exceed ${maxBytes} bytes`,
    );
  } else if (reason === 'timeout') {
    res.once('finish', () => res.socket?.destroy());
    sendJsonRpcError(res, 408, ErrorCode.ServerError, 'Request Timeout: the request body was not received in time', {
      Connection: 'close',
    });
  } else if (reason === 'bad-json') {
    sendJsonRpcError(res, 400, ErrorCode.ParseError, 'Parse error: invalid JSON');
  } else if (!res.writableEnded) {
    res.destroy();
  }
}

/** Sends a plain `{ error }` JSON body for non-MCP routes. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: message, ...extra }, headers);
}

/** What a request Node's parser refused is told: its head was bad, too big, or too slow. */
const CLIENT_ERRORS: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'request headers too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'the request was not received in time' },
};

/**
 * Answers a connection whose request Node's HTTP parser refused (a malformed head, such as
 * `Content-Length: -1`, 400; headers too large, 431; the head or body not received in
 * time, 408), then drops it. Nothing is written when a response is already under way on the
 * connection or the client is gone.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const known = CLIENT_ERRORS[err.code ?? ''] ?? { status: 400, message: 'malformed request' };
  const busy = (socket as { _httpMessage?: unknown })._httpMessage;
  if (socket.writable && !busy && err.code !== 'ECONNRESET') {
    const body = JSON.stringify({ error: known.message });
    socket.write(
      `HTTP/1.1 ${known.status} ${STATUS_CODES[known.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
