/**
 * Security checks for the loopback HTTP bridge: where it may bind, the per-launch bearer
 * token, and the `Host` / `Origin` checks that stop DNS rebinding and cross-site requests.
 *
 * Pure functions over plain values, so each rule is testable without a server.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The realm named in `WWW-Authenticate` on a 401. */
export const AUTH_REALM = 'qiming-mcp-bridge';

/** A fresh per-launch bearer token: 32 random bytes, base64url (43 characters). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Strips the brackets of an IPv6 literal (`[::1]` -> `::1`) and lower-cases the name. */
function bareHost(host: string): string {
  const h = host.trim().toLowerCase();
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

/** True for names that only ever reach this machine: `localhost`, 127.0.0.0/8, `::1`. */
export function isLoopbackHost(host: string): boolean {
  const h = bareHost(host);
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (h.startsWith('::ffff:')) return isLoopbackHost(h.slice('::ffff:'.length));
  return /^127(\.\d{1,3}){3}$/.test(h);
}

/** True for the wildcard addresses that bind every interface. */
export function isWildcardHost(host: string): boolean {
  const h = bareHost(host);
  return h === '0.0.0.0' || h === '::' || h === '';
}

/**
 * Throws unless `host` is a loopback address, or `allowNonLoopback` was set explicitly.
 * The bridge carries the user's MCP servers (file systems, shells): exposing it to the
 * network must be a deliberate choice, never a typo.
 */
export function assertBindAllowed(host: string, allowNonLoopback = false): void {
  if (isLoopbackHost(host) || allowNonLoopback) return;
  throw new Error(`refusing to bind the MCP bridge to non-loopback host "${host}" (set allowNonLoopback to override)`);
}

/** Formats `host:port`, bracketing IPv6 literals. */
export function hostWithPort(host: string, port: number): string {
  const h = bareHost(host);
  return h.includes(':') ? `[${h}]:${port}` : `${h}:${port}`;
}

/**
 * The `Host` header values the bridge answers to: the three loopback spellings on its
 * port, plus the bind host itself when the caller opted into a specific non-loopback
 * address. A wildcard bind adds nothing: which name a remote client uses is unknowable,
 * and accepting any would undo the rebinding check.
 */
export function allowedHostHeaders(port: number, bindHost = '127.0.0.1'): Set<string> {
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  if (!isLoopbackHost(bindHost) && !isWildcardHost(bindHost)) hosts.add(hostWithPort(bindHost, port));
  return hosts;
}

/** True when the `Host` header is exactly one of `allowed` (compared case-insensitively). */
export function hostAllowed(hostHeader: string | undefined, allowed: ReadonlySet<string>): boolean {
  return hostHeader !== undefined && allowed.has(hostHeader.trim().toLowerCase());
}

/**
 * True when the request carries no `Origin` (non-browser clients, same-origin GETs) or
 * the bridge's own origin. Any other origin, including `null`, is a page elsewhere
 * trying to reach the bridge through the user's browser.
 */
export function originAllowed(origin: string | undefined, allowedHosts: ReadonlySet<string>): boolean {
  if (origin === undefined) return true;
  const o = origin.trim().toLowerCase();
  if (!o.startsWith('http://')) return false;
  return allowedHosts.has(o.slice('http://'.length));
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Compares a presented token with the expected one in constant time. Both are hashed
 * first so the comparison is always between equal-length buffers and leaks neither the
 * token's length nor a matching prefix.
 */
export function tokenEquals(presented: string, expected: string): boolean {
  // Both digests are computed even for an empty token, so timing does not depend on it.
  const ok = timingSafeEqual(digest(presented), digest(expected));
  return ok && expected.length > 0;
}

/** Extracts the token of an `Authorization: Bearer <token>` header (scheme case-insensitive). */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization);
  return m ? m[1] : undefined;
}

/** True when the request's `Authorization` header carries `token`. */
export function authorized(headers: IncomingHttpHeaders, token: string): boolean {
  const presented = bearerToken(headers.authorization);
  return presented !== undefined && tokenEquals(presented, token);
}

/** The value of `WWW-Authenticate` sent with a 401. */
export function wwwAuthenticate(): string {
  return `Bearer realm="${AUTH_REALM}"`;
}

/** The outcome of the Host/Origin gate: undefined when the request may proceed. */
export interface GateFailure {
  status: 400 | 403;
  message: string;
}

/**
 * The request target: origin-form (`/path`) passes; an absolute-form target
 * (`http://host/path`, which a server must honour over `Host`) must name the bridge too;
 * anything else (`*`, authority-form) is a bad request here.
 */
export function checkRequestTarget(
  target: string | undefined,
  allowedHosts: ReadonlySet<string>,
): GateFailure | undefined {
  if (target === undefined || target.startsWith('/')) return undefined;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { status: 400, message: 'Bad Request: malformed request target' };
  }
  if (url.protocol !== 'http:')
    return { status: 400, message: `Bad Request: request target scheme "${url.protocol}" is not served` };
  const host = url.port === '' ? `${url.host}:80` : url.host; // URL drops the scheme's default port
  if (!allowedHosts.has(host.toLowerCase()))
    return { status: 403, message: `Forbidden: request target host "${url.host}" is not this bridge` };
  return undefined;
}

/**
 * The DNS-rebinding gate applied to every request, the static page included: `Host`
 * must name the bridge on loopback, and a browser `Origin`, when present, must be the
 * bridge's own; so must the host of an absolute-form request target.
 */
export function checkHostAndOrigin(
  headers: IncomingHttpHeaders,
  allowedHosts: ReadonlySet<string>,
  target?: string,
): GateFailure | undefined {
  const badTarget = checkRequestTarget(target, allowedHosts);
  if (badTarget) return badTarget;
  if (!hostAllowed(headers.host, allowedHosts)) {
    return { status: 403, message: `Forbidden: Host header "${headers.host ?? ''}" is not this bridge` };
  }
  const origin = headers.origin;
  if (!originAllowed(origin, allowedHosts)) {
    return { status: 403, message: `Forbidden: Origin "${origin}" is not this bridge` };
  }
  return undefined;
}
