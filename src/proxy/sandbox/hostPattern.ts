/**
 * The hosts of a sandbox's `network.allow`: `host`, `host:port`, `*.domain`, `*.domain:port`
 * (a `*.` matches any subdomain, not the domain itself), an IPv4 address; checked when the
 * config is read and matched by the filtering proxy (filterProxy.ts). Names compare without
 * case and without a trailing dot; no port: any port.
 */

/** One allowed host. */
export interface HostRule {
  /** Lower case; for a wildcard, the domain after `*.`. */
  host: string;
  wildcard: boolean;
  port?: number;
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const NAME_RE = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
const MAX_PATTERN = 253 + 8;

/** A pattern as a rule, or the reason it is malformed. */
export function parseHostPattern(pattern: string): HostRule | { error: string } {
  const bad = (why: string) => ({
    error: `${why}; write "host", "host:port" or "*.domain" (e.g. "api.example.com", "*.example.com:443")`,
  });
  if (pattern.length === 0 || pattern.length > MAX_PATTERN) return bad('is empty or too long');
  let text = pattern.toLowerCase();
  let port: number | undefined;
  const colon = text.lastIndexOf(':');
  if (colon >= 0) {
    const p = text.slice(colon + 1);
    if (!/^\d{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65535) return bad('has a port that is not 1-65535');
    port = Number(p);
    text = text.slice(0, colon);
  }
  const wildcard = text.startsWith('*.');
  if (wildcard) text = text.slice(2);
  text = text.replace(/\.$/, '');
  if (text.includes('*')) return bad('may have "*" only as its first label ("*.domain")');
  if (!NAME_RE.test(text)) return bad('is not a host name');
  if (wildcard && !text.includes('.')) return bad('"*." needs a domain with a dot (not a whole top-level domain)');
  return { host: text, wildcard, ...(port !== undefined ? { port } : {}) };
}

/** Whether `host:port` (a request's target) is one the rules allow. */
export function hostAllowed(rules: readonly HostRule[], host: string, port: number): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return rules.some(
    (r) => (r.port === undefined || r.port === port) && (r.wildcard ? h.endsWith(`.${r.host}`) : h === r.host),
  );
}
