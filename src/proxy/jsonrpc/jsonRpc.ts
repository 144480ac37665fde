/**
 * Minimal JSON-RPC 2.0 shapes and helpers used on the forwarding path. Messages are handled
 * as plain objects: the proxy parses each message once, rewrites only what routing needs
 * (id, name, progress token) and serialises once; payloads are never schema-validated here.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export type RequestId = string | number;

export interface RpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}
export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
export interface RpcResult {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}
export interface RpcError {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: RpcErrorObject;
}
export type RpcResponse = RpcResult | RpcError;
export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

/** JSON-RPC and MCP error codes used by the proxy: the one table (no numeric code elsewhere in src/). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ConnectionClosed: -32000,
  /** The SDK's code for a transport-level refusal (bad session header, unsupported media type, ...); same number as ConnectionClosed. */
  ServerError: -32000,
  RequestTimeout: -32001,
  /** The SDK's code for an unknown streamable/SSE session (sent with HTTP 404); same number as RequestTimeout. */
  SessionNotFound: -32001,
  ServerNotReady: -32002,
  QueueFull: -32003,
  /** MCP 2025-11-25: the request needs the URL elicitations in `error.data.elicitations` first (passed through unchanged). */
  UrlElicitationRequired: -32042,
  /** 2026-07-28: the HTTP headers do not match the body, or a required one is missing. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability its `_meta` envelope did not declare. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the requested protocol version is not served (`data.supported` lists those that are). */
  UnsupportedProtocolVersion: -32022,
} as const;

/**
 * Parses one frame's text into a JSON-RPC 2.0 message, checking only the shape (an object
 * with `jsonrpc: "2.0"`): forwarded payloads are the endpoints' business to validate.
 * Undefined for anything else.
 */
export function parseRpcFrame(text: string): JSONRPCMessage | undefined {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof msg === 'object' && msg !== null && (msg as { jsonrpc?: unknown }).jsonrpc === '2.0'
    ? (msg as JSONRPCMessage)
    : undefined;
}

/**
 * The one copy of the message guards: every classification of a message in src/ goes
 * through these. They read fields only (no validation: the endpoints validate input);
 * they take typed messages, the SDK's wire type, or a plain parsed object.
 */
type AnyMessage = RpcMessage | JSONRPCMessage | Readonly<Record<string, unknown>>;
type Fields = { method?: unknown; id?: unknown };

/** A request: a method and an id that is neither null nor undefined. */
export function isRequest(m: AnyMessage): m is RpcRequest {
  return 'method' in m && 'id' in m && (m as Fields).id !== undefined && (m as Fields).id !== null;
}
/** A response: no method, and a result or an error. */
export function isResponse(m: AnyMessage): m is RpcResponse {
  return !('method' in m) && ('result' in m || 'error' in m);
}
/** The method of a request or notification; undefined for a response. */
export function methodOf(m: AnyMessage): string | undefined {
  const method = (m as Fields).method;
  return typeof method === 'string' ? method : undefined;
}

export function asWire(m: RpcMessage): JSONRPCMessage {
  return m as unknown as JSONRPCMessage;
}

/** An error carrying a JSON-RPC code, raised by the proxy's own requests. */
export class RpcRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcRequestError';
  }
  static connectionClosed(detail: string): RpcRequestError {
    return new RpcRequestError(ErrorCode.ConnectionClosed, detail);
  }
  static timeout(method: string, ms: number): RpcRequestError {
    return new RpcRequestError(ErrorCode.RequestTimeout, `request ${method} timed out after ${ms} ms`);
  }
  static methodNotFound(method: string): RpcRequestError {
    return new RpcRequestError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }
  toObject(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}
