/**
 * The `Mcp-Param-*` headers of a 2026-07-28 `tools/call` (SEP-2243 custom headers): a tool
 * whose input schema marks a property with `x-mcp-header: "Name"` has its client mirror that
 * argument into `Mcp-Param-Name` (the value as text; `=?base64?...?=` for what a header cannot
 * carry). A server that reads the body must check each header against it: a missing header
 * for an argument that is set, a wrapped value that is not valid Base64 (padding included)
 * or a value that differs from the argument is a mismatch (-32020, HTTP 400, as for
 * `Mcp-Method`). Only top-level `properties` carry the annotation; a value without the full
 * wrapper is literal.
 */
import type { IncomingHttpHeaders } from 'node:http';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The text a `Mcp-Param-*` header carries; undefined for a wrapped value that is not valid Base64. */
export function paramHeaderValue(v: string): string | undefined {
  const m = /^=\?base64\?(.*)\?=$/s.exec(v);
  if (!m) return v;
  return BASE64.test(m[1]!) ? Buffer.from(m[1]!, 'base64').toString('utf8') : undefined;
}

/** Why the `Mcp-Param-*` headers disagree with a `tools/call`'s arguments, if they do. */
export function paramHeaderMismatch(headers: IncomingHttpHeaders, inputSchema: unknown, args: unknown): string | undefined {
  const props = (inputSchema as { properties?: unknown } | undefined)?.properties;
  if (!props || typeof props !== 'object') return undefined;
  const given = (args && typeof args === 'object' ? args : {}) as Record<string, unknown>;
  for (const [key, def] of Object.entries(props as Record<string, Record<string, unknown> | null>)) {
    const name = def?.['x-mcp-header'];
    if (typeof name !== 'string' || name === '') continue;
    const raw = headers[`mcp-param-${name.toLowerCase()}`];
    const header = Array.isArray(raw) ? raw[0] : raw;
    const value = given[key];
    if (value === undefined || value === null) {
      if (header !== undefined) return `Mcp-Param-${name} header is set but argument '${key}' is not`;
      continue;
    }
    if (header === undefined) return `Mcp-Param-${name} header is required (argument '${key}' is set)`;
    const text = paramHeaderValue(header);
    if (text === undefined) return `Mcp-Param-${name} header has an invalid Base64 value`;
    if (text !== String(value)) return `Mcp-Param-${name} header value does not match argument '${key}'`;
  }
  return undefined;
}
