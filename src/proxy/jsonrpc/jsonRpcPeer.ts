// src/proxy/jsonrpc/: the proxy's own minimal JSON-RPC layer, the only copy of its shapes, guards and error codes.
/**
 * A JSON-RPC endpoint over an SDK `Transport`: sends requests with its own ids and returns
 * the raw response (result or error object, never re-validated), answers incoming requests,
 * passes notifications on. Pending requests are failed at once when the transport closes,
 * and each has a timeout that progress notifications can reset.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import {
  asWire,
  ErrorCode,
  isRequest,
  isResponse,
  RpcRequestError,
  type RequestId,
  type RpcErrorObject,
  type RpcMessage,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
} from './jsonRpc.js';
import { wireBytesOf } from '../common/wireBytes.js';

export interface RequestOptions {
  /** 0 or undefined disables the timeout. */
  timeoutMs?: number;
  /** Sent to the transport (streamable HTTP uses it to pick the response stream). */
  relatedRequestId?: RequestId;
}

/**
 * What a transport may tell about an incoming message beyond the SDK's fields: the id of our
 * request it belongs to, when the wire says so (streamable HTTP: it came on the response
 * stream of the POST that carried that request).
 */
export interface RelatedExtra extends MessageExtraInfo {
  relatedRequestId?: RequestId;
}

export interface PendingHandle {
  id: RequestId;
  /** Restarts the timeout (called when progress arrives for this request). */
  touch(): void;
  /** Settles the request locally without waiting for the peer (used for cancellation). */
  abandon(error: RpcErrorObject): void;
}

interface Pending {
  method: string;
  resolve: (r: RpcResponse) => void;
  timer?: NodeJS.Timeout;
  timeoutMs: number;
}

export class JsonRpcPeer {
  /**
   * Incoming request; the handler must eventually call `respond` or `respondError`.
   * `relatedRequestId`: our request it belongs to, when the transport knows (see RelatedExtra).
   */
  onrequest?: (req: RpcRequest, relatedRequestId?: RequestId) => void;
  onnotification?: (n: RpcNotification, relatedRequestId?: RequestId) => void;
  /** Fires once when the transport closes. */
  onclose?: (reason: string) => void;
  onerror?: (err: Error) => void;

  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private closed = false;
  private closeReason = 'connection closed';

  constructor(readonly transport: Transport) {
    transport.onmessage = (m, extra) => this.receive(m as unknown as RpcMessage, extra as RelatedExtra | undefined);
    transport.onerror = (e) => this.onerror?.(e);
    transport.onclose = () => this.handleClose();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  start(): Promise<void> {
    return this.transport.start();
  }

  /** Sets the reason reported to pending requests when the transport closes. */
  setCloseReason(reason: string): void {
    this.closeReason = reason;
  }

  /**
   * Sends a request and resolves with the peer's raw response. Transport loss and timeouts
   * resolve with an error response too, so forwarding code has one path. `beforeSend` learns
   * the request's id first and may return replacement params (to route a progress token).
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    opts: RequestOptions = {},
    beforeSend?: (h: PendingHandle) => Record<string, unknown> | void,
  ): Promise<RpcResponse> {
    const id = this.nextId++;
    return new Promise<RpcResponse>((resolve) => {
      if (this.closed) {
        resolve(errorResponse(id, { code: ErrorCode.ConnectionClosed, message: this.closeReason }));
        return;
      }
      const p: Pending = { method, resolve, timeoutMs: opts.timeoutMs ?? 0 };
      this.pending.set(id, p);
      this.arm(id, p);
      const replaced = beforeSend?.({
        id,
        touch: () => this.arm(id, p),
        abandon: (error) => this.settle(id, errorResponse(id, error)),
      });
      const finalParams = replaced ?? params;
      const msg: RpcRequest =
        finalParams === undefined
          ? { jsonrpc: '2.0', id, method }
          : { jsonrpc: '2.0', id, method, params: finalParams };
      this.send(msg, opts.relatedRequestId).catch((err: Error) =>
        this.settle(
          id,
          errorResponse(id, { code: ErrorCode.ConnectionClosed, message: `cannot send ${method}: ${err.message}` }),
        ),
      );
    });
  }

  /** Like `request`, but resolves with the result and throws `RpcRequestError` on error. */
  async call(
    method: string,
    params?: Record<string, unknown>,
    opts: RequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const res = await this.request(method, params, opts);
    if ('error' in res) throw new RpcRequestError(res.error.code, res.error.message, res.error.data);
    return res.result;
  }

  notify(method: string, params?: Record<string, unknown>, relatedRequestId?: RequestId): Promise<void> {
    const msg: RpcNotification = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return this.send(msg, relatedRequestId).catch((err: Error) => this.onerror?.(err));
  }

  respond(id: RequestId, result: Record<string, unknown>): Promise<void> {
    return this.send({ jsonrpc: '2.0', id, result }, id).catch((err: Error) => this.onerror?.(err));
  }

  /** Answers `id`; resolves with the answer's size on the wire when the transport noted it (common/wireBytes.ts). */
  async answer(
    id: RequestId,
    body: { result: Record<string, unknown> } | { error: RpcErrorObject },
  ): Promise<number | undefined> {
    const msg = { jsonrpc: '2.0' as const, id, ...body } as RpcResponse;
    await this.send(msg, id).catch((err: Error) => this.onerror?.(err));
    return wireBytesOf(msg);
  }

  respondError(id: RequestId, error: RpcErrorObject): Promise<void> {
    return this.send({ jsonrpc: '2.0', id, error }, id).catch((err: Error) => this.onerror?.(err));
  }

  /**
   * Sends any message as is. After the transport closed this is still attempted: a stdio
   * client that half-closed its input still reads the answers to what it sent.
   */
  send(msg: RpcMessage, relatedRequestId?: RequestId): Promise<void> {
    const opts: TransportSendOptions | undefined = relatedRequestId === undefined ? undefined : { relatedRequestId };
    return this.transport.send(asWire(msg), opts);
  }

  async close(): Promise<void> {
    await this.transport.close();
    this.handleClose();
  }

  private arm(id: RequestId, p: Pending): void {
    if (p.timer) clearTimeout(p.timer);
    if (!p.timeoutMs) return;
    p.timer = setTimeout(() => {
      this.settle(id, errorResponse(id, RpcRequestError.timeout(p.method, p.timeoutMs).toObject()));
    }, p.timeoutMs);
    p.timer.unref?.();
  }

  private settle(id: RequestId, res: RpcResponse): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    p.resolve(res);
  }

  private receive(m: RpcMessage, extra?: RelatedExtra): void {
    if (isResponse(m)) {
      if (m.id !== null) this.settle(m.id, m);
      return;
    }
    if (isRequest(m)) {
      if (this.onrequest) this.onrequest(m, extra?.relatedRequestId);
      else void this.respondError(m.id, RpcRequestError.methodNotFound(m.method).toObject());
      return;
    }
    this.onnotification?.(m as RpcNotification, extra?.relatedRequestId);
  }

  private handleClose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [id] of [...this.pending]) {
      this.settle(id, errorResponse(id, { code: ErrorCode.ConnectionClosed, message: this.closeReason }));
    }
    this.onclose?.(this.closeReason);
  }
}

export function errorResponse(id: RequestId | null, error: RpcErrorObject): RpcResponse {
  return { jsonrpc: '2.0', id, error } as RpcResponse;
}
