/**
 * The Content-Security-Policy of an MCP Apps view, from its resource's `_meta.ui.csp` or the
 * spec's default (2026-01-26: no network, inline scripts and styles, `data:` images and
 * media). Each declared origin is kept only when it is a plain scheme://host[:port] (wildcard
 * subdomains and ports allowed), so nothing a server writes can add a directive.
 */
export interface AppCsp {
  connectDomains?: unknown;
  resourceDomains?: unknown;
  frameDomains?: unknown;
  baseUriDomains?: unknown;
}

const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:(\d{1,5}|\*))?$/;
/** At most this many origins per directive. */
const MAX_ORIGINS = 50;

/** The origins of `v` that are safe to write into a policy. */
export function cspOrigins(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v.filter((d): d is string => typeof d === 'string' && d.length <= 253 && ORIGIN.test(d)).slice(0, MAX_ORIGINS);
}

/** The policy for a view whose resource declared `csp` (undefined: the default). */
export function viewCsp(csp: AppCsp | undefined): string {
  const connect = cspOrigins(csp?.connectDomains);
  const resource = cspOrigins(csp?.resourceDomains);
  const frame = cspOrigins(csp?.frameDomains);
  const base = cspOrigins(csp?.baseUriDomains);
  const list = (first: string, more: string[]) => [first, ...more].join(' ');
  return [
    "default-src 'none'",
    list("script-src 'self' 'unsafe-inline'", resource),
    list("style-src 'self' 'unsafe-inline'", resource),
    list("img-src 'self' data:", resource),
    list("font-src 'self' data:", resource),
    list("media-src 'self' data:", resource),
    connect.length ? `connect-src ${connect.join(' ')}` : "connect-src 'none'",
    frame.length ? `frame-src ${frame.join(' ')}` : "frame-src 'none'",
    base.length ? `base-uri ${base.join(' ')}` : "base-uri 'self'",
    "object-src 'none'",
  ].join('; ');
}
