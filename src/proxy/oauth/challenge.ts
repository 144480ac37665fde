// src/proxy/oauth/: signing in to remote servers (MCP authorization): discovery, browser, callback, tokens.
/**
 * Reads a `WWW-Authenticate` header for its Bearer challenge (RFC 6750, RFC 9728 §5.1):
 * `error`, `scope` and `resource_metadata`. A header without a Bearer challenge means the
 * server does not do OAuth, and nobody is asked to sign in.
 */

export interface BearerChallenge {
  error?: string;
  scope?: string;
  resourceMetadata?: string;
  errorDescription?: string;
}

const PARAM_RE = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;

/** The Bearer challenge in `header`, or undefined when there is none. */
export function parseBearerChallenge(header: string | undefined): BearerChallenge | undefined {
  if (!header) return undefined;
  const at = header.search(/(^|[\s,])Bearer(\s|$)/i);
  if (at < 0) return undefined;
  // The Bearer challenge runs until the next scheme token (a word followed by a space and no `=`).
  const rest = header.slice(at).replace(/^[\s,]*Bearer/i, '');
  const next = rest.search(/,\s*[A-Za-z][A-Za-z0-9_-]*\s+(?![^=\s]*=)[A-Za-z0-9_-]+=/);
  const params = next >= 0 ? rest.slice(0, next) : rest;
  const out: BearerChallenge = {};
  for (const m of params.matchAll(PARAM_RE)) {
    const value = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3];
    const key = m[1].toLowerCase();
    if (key === 'error') out.error = value;
    else if (key === 'scope') out.scope = value;
    else if (key === 'resource_metadata') out.resourceMetadata = value;
    else if (key === 'error_description') out.errorDescription = value;
  }
  return out;
}

/** The union of two space-separated scope lists, in order, without duplicates. */
export function unionScopes(a: string | undefined, b: string | undefined): string | undefined {
  const all = [...(a ?? '').split(/\s+/), ...(b ?? '').split(/\s+/)].filter((s) => s !== '');
  return all.length ? [...new Set(all)].join(' ') : undefined;
}
