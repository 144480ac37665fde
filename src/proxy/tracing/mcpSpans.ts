/**
 * A span's name and attributes as the OpenTelemetry semantic conventions for MCP name them
 * (open-telemetry/semantic-conventions-genai, docs/gen-ai/mcp.md): `{mcp.method.name} {target}`
 * with the tool or prompt name as the target, the request's id, the tool, prompt or resource
 * (its URI masked by the caller: a query or userinfo may hold a credential), the protocol
 * version, the transport; on an error answer the JSON-RPC code as `error.type` and
 * `rpc.response.status_code`, and its message as the span status. A `call_tool` is named
 * after the tool it called, with `qiming.via`. Never an argument or a result value.
 */
import { SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import type { RpcErrorObject } from '../jsonrpc/jsonRpc.js';

/** The longest name or URI put on a span (the conventions ask for low-cardinality names, not limits). */
const MAX_VALUE_CHARS = 300;
/** How much of an error message becomes the span's status. */
const MAX_MESSAGE_CHARS = 500;

/** The span name and the attributes of `method` with `params`, on either side; `maskUri` masks a resource URI. */
export function requestSpan(
  method: string,
  params: Record<string, unknown> | undefined,
  maskUri: (uri: string) => string,
): [string, Attributes] {
  const attrs: Attributes = { 'mcp.method.name': method };
  const name = typeof params?.name === 'string' ? params.name.slice(0, MAX_VALUE_CHARS) : undefined;
  let target: string | undefined;
  if (method === 'tools/call' && name !== undefined) {
    attrs['gen_ai.tool.name'] = target = name;
    attrs['gen_ai.operation.name'] = 'execute_tool';
  } else if (method === 'prompts/get' && name !== undefined) attrs['gen_ai.prompt.name'] = target = name;
  else if (method.startsWith('resources/') && typeof params?.uri === 'string')
    attrs['mcp.resource.uri'] = maskUri(params.uri).slice(0, MAX_VALUE_CHARS);
  return [target === undefined ? method : `${method} ${target}`, attrs];
}

/** A `tools/call` of `via` (`call_tool`) that calls the tool `name`: the span is that tool's, and says how it came. */
export function throughSpan(span: Span, via: string, name: string): void {
  const tool = name.slice(0, MAX_VALUE_CHARS);
  span.updateName(`tools/call ${tool}`);
  span.setAttributes({ 'gen_ai.tool.name': tool, 'qiming.via': via });
}

/** Marks `span` as failed with a JSON-RPC `error` (its message masked by the caller). */
export function failedSpan(span: Span, error: RpcErrorObject, message: string): void {
  const code = String(error.code);
  span.setAttributes({ 'error.type': code, 'rpc.response.status_code': code });
  span.setStatus({ code: SpanStatusCode.ERROR, message: message.slice(0, MAX_MESSAGE_CHARS) });
}

/** A tool's own failure (`isError: true` in its result): the conventions' `tool_error`. */
export function toolErrorSpan(span: Span): void {
  span.setAttribute('error.type', 'tool_error');
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Where a server is, for a client span: `network.transport`, and `server.address`/`server.port` of a remote one. */
export function serverAttributes(kind: 'stdio' | 'http' | 'sse', url: string | undefined): Attributes {
  if (kind === 'stdio' || url === undefined) return { 'network.transport': kind === 'stdio' ? 'pipe' : 'tcp' };
  const attrs: Attributes = { 'network.transport': 'tcp', 'network.protocol.name': 'http' };
  try {
    const u = new URL(url);
    attrs['server.address'] = u.hostname.replace(/^\[|\]$/g, '');
    attrs['server.port'] = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  } catch {
    // An entry's URL was checked when the config was read; nothing to add.
  }
  return attrs;
}
