/**
 * Secret redaction for logs and status: urls lose their userinfo and query values,
 * credentials inside args become `***` (after a secret-named flag, in a credential-named
 * header, in a JSON arg), and an entry's secret values are listed for secretMask.ts, which
 * masks them in every log line and the status.
 */
import type { ServerEntry } from './config.js';

const MASK = '***';
/** Values shorter than this are not treated as secrets: masking "1" would wreck every log line. */
const MIN_SECRET_LENGTH = 4;
/** Env values that are plainly flags, not secrets. */
const NOT_SECRET_RE = /^(true|false|yes|no|on|off|null|undefined|\d{1,5})$/i;
/** Flag or variable names whose value is a credential (`--api-key`, `GITHUB_TOKEN=`). */
const SECRET_NAME_RE =
  /(token|secret|passw(or)?d|pwd|api[-_]?key|access[-_]?key|private[-_]?key|auth|credential|bearer)/i;
/** Well-known token prefixes (GitHub, OpenAI/Anthropic, Slack, GitLab) seen as bare args. */
const TOKEN_PREFIX_RE = /^(ghp_|gho_|ghs_|ghu_|github_pat_|sk-|xox[abpr]-|glpat-)/;
/** `/x`, `~/x`, `C:\\x`: a filesystem path, not a credential. */
const ABSOLUTE_PATH_RE = /^(\/|~\/|[A-Za-z]:[\\/])[^\s]*$/;
const URL_IN_TEXT_RE = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'<>]+/g;

/**
 * A path segment that looks like a credential: a known token prefix, or a long run of
 * letters and digits mixed (an API key in the path, `/v1/<key>/mcp`). Words, numbers,
 * ids like `server-github-2024` and uuids are kept.
 */
function isSecretSegment(seg: string): boolean {
  let raw = seg;
  try {
    raw = decodeURIComponent(seg);
  } catch {
    // kept as is
  }
  if (TOKEN_PREFIX_RE.test(raw)) return true;
  // A run of 20+ letters and digits, both present: a key, not `my-server-2024` or a uuid.
  return (raw.match(/[A-Za-z0-9]{20,}/g) ?? []).some((run) => /[A-Za-z]/.test(run) && /\d/.test(run));
}

/**
 * Returns `url` without userinfo, with every query value (and any fragment) masked and
 * secret-looking path segments masked:
 * `https://u:p@h/x/sk-abc?key=abc&flag` -> `https://h/x/***?key=***&***`. Unparseable input
 * is masked from the first `?` or `#` on, and loses anything between `//` and `@`.
 */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url.replace(/\/\/[^/?#]*@/, '//').replace(/[?#][\s\S]*$/, `?${MASK}`);
  }
  u.username = '';
  u.password = '';
  if (u.pathname.length > 1) {
    const segs = u.pathname.split('/');
    if (segs.some(isSecretSegment)) u.pathname = segs.map((seg) => (isSecretSegment(seg) ? MASK : seg)).join('/');
  }
  if (u.search) {
    const parts = u.search
      .slice(1)
      .split('&')
      .map((p) => {
        const eq = p.indexOf('=');
        // A bare item (`?sk-123`) may itself be the secret, so it is masked whole.
        return eq < 0 ? MASK : `${p.slice(0, eq)}=${MASK}`;
      });
    u.search = `?${parts.join('&')}`;
  }
  if (u.hash) u.hash = MASK;
  return u.toString();
}

/** Every url inside `text` passed through {@link redactUrl} (error messages that quote one). */
export function redactUrlsInText(text: string): string {
  return text.replace(URL_IN_TEXT_RE, (m) => {
    // Sentence punctuation after a url (`from <url>: ...`) is not part of it.
    const tail = /[.,:;!)\]]+$/.exec(m)?.[0] ?? '';
    return redactUrl(m.slice(0, m.length - tail.length)) + tail;
  });
}

function isSecretLike(value: string): boolean {
  return value.length >= MIN_SECRET_LENGTH && !NOT_SECRET_RE.test(value);
}

/** Names of variables, headers and query parameters whose value is a credential. */
const CREDENTIAL_NAME_RE =
  /(token|secret|passw(or)?d|pwd|api[-_]?key|apikey|access[-_]?key|private[-_]?key|auth|credential|bearer|cookie|session|sig(nature)?|^key$|[-_]key$)/i;

/**
 * Whether a value that is not named as a credential still looks like one: a known token
 * prefix, or one long word of letters and digits (a generated key). Everyday values ("debug",
 * "json", a path) are not, so masking them everywhere would not wreck the logs.
 */
function looksLikeToken(value: string): boolean {
  if (TOKEN_PREFIX_RE.test(value)) return true;
  if (value.length < 16 || /\s/.test(value) || ABSOLUTE_PATH_RE.test(value)) return false;
  return /[0-9]/.test(value) && /[A-Za-z]/.test(value);
}

/** A value to mask everywhere: named as a credential, or shaped like one. */
function isCredential(name: string, value: string): boolean {
  return CREDENTIAL_NAME_RE.test(name) ? isSecretLike(value) : looksLikeToken(value);
}

/** Credentials carried inside a url: userinfo parts and query values (raw and decoded). */
export function urlSecrets(url: string): string[] {
  const out: string[] = [];
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return out;
  }
  for (const part of [u.username, u.password]) {
    if (part) out.push(part, safeDecode(part));
  }
  for (const [name, value] of u.searchParams) {
    if (!value ? looksLikeToken(name) : isCredential(name, value)) out.push(value || name);
  }
  for (const item of u.search.slice(1).split('&')) {
    const eq = item.indexOf('=');
    if (eq >= 0 && eq < item.length - 1 && isCredential(item.slice(0, eq), safeDecode(item.slice(eq + 1))))
      out.push(item.slice(eq + 1));
  }
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The strings of `entry` that must never reach a log or status: env values, the credentials
 * inside args, header values, the bearer token alone, and credentials inside the url.
 * Trivial values ("1", "true", shorter than 4 characters) are left out. Deduplicated,
 * longest first.
 */
export function entrySecrets(entry: ServerEntry): string[] {
  const found: string[] = [];
  if (entry.kind === 'stdio') {
    // A path or a level is what a server logs about itself ("graph at /home/me/x.jsonl"):
    // only values named or shaped like credentials are masked everywhere.
    for (const [name, value] of Object.entries(entry.env)) if (isCredential(name, value)) found.push(value);
    // What redactArgs masks in the args is masked everywhere too (a server may print its argv).
    found.push(...argSecrets(entry.args));
  } else {
    found.push(...headerSecrets(entry.headers), ...urlSecrets(entry.url));
    if (entry.oauth && entry.oauth.clientSecret) found.push(entry.oauth.clientSecret);
  }
  return [...new Set(found.filter(isSecretLike))].sort((a, b) => b.length - a.length);
}

/** Header values, and the credential alone of an `Authorization: Bearer <x>` header. */
export function headerSecrets(headers: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!isCredential(name, value)) continue;
    found.push(value);
    const scheme = /^\s*(bearer|basic|token)\s+(.+)$/i.exec(value);
    if (scheme && name.toLowerCase() === 'authorization') found.push(scheme[2].trim());
  }
  return found.filter(isSecretLike);
}

/** `${VAR}` alone: names a variable (the raw config the panel shows), holds no secret. */
const VAR_ONLY_RE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;
/** A header given as one arg, `Name: value` or `Name:value` (curl's and mcp-remote's `--header`, `-H`). */
const HEADER_ARG_RE = /^([A-Za-z][A-Za-z0-9_-]*)(\s*:\s*)(\S[\s\S]*)$/;
/** An auth scheme before its credential: `Bearer <x>`, `Basic <x>`, `Token <x>`. */
const SCHEME_RE = /^(bearer|basic|token)(\s+)(\S[\s\S]*)$/i;

/** One arg as shown (credentials masked, urls redacted) and the credential values it holds. */
interface ArgCredentials {
  shown: string;
  values: string[];
}

/**
 * The credentials in `arg` (after `prev`): the value after a secret-named flag (`--token X`,
 * `--api-key=X`, `GITHUB_TOKEN=X`), a token-prefixed arg (`ghp_...`), the value of a
 * credential-named header (`Authorization: Bearer X`, `X-API-Key: X`, also after `--header=`),
 * a bare `Bearer X`, credential-named or token-shaped strings of a JSON arg (`{"apiKey":"X"}`).
 * A value that is only a `${VAR}` reference is none. Urls in args: {@link redactUrl}, {@link urlSecrets}.
 */
function argCredentials(arg: string, prev: string): ArgCredentials {
  const found = (shown: string, value: string): ArgCredentials =>
    VAR_ONLY_RE.test(value) ? { shown: arg, values: [] } : { shown, values: [value] };
  if (/^--?[\w.-]+$/.test(prev) && SECRET_NAME_RE.test(prev) && !arg.startsWith('-')) return found(MASK, arg);
  const assign = /^(-{0,2}[\w.-]+)=([\s\S]+)$/.exec(arg);
  if (assign && SECRET_NAME_RE.test(assign[1])) return found(`${assign[1]}=${MASK}`, assign[2]);
  if (TOKEN_PREFIX_RE.test(arg)) return found(MASK, arg);
  const lead = assign ? `${assign[1]}=` : '';
  const text = assign ? assign[2] : arg;
  const header = HEADER_ARG_RE.exec(text);
  if (header && CREDENTIAL_NAME_RE.test(header[1])) {
    const scheme = SCHEME_RE.exec(header[3]);
    if (scheme) return found(`${lead}${header[1]}${header[2]}${scheme[1]}${scheme[2]}${MASK}`, scheme[3]);
    return found(`${lead}${header[1]}${header[2]}${MASK}`, header[3]);
  }
  const scheme = SCHEME_RE.exec(text);
  if (scheme) return found(`${lead}${scheme[1]}${scheme[2]}${MASK}`, scheme[3]);
  if (/^\s*[{[]/.test(text)) {
    const values = jsonCredentials(text);
    if (values.length)
      return { shown: values.reduce((t, v) => t.split(JSON.stringify(v)).join(`"${MASK}"`), arg), values };
  }
  return { shown: arg, values: [] };
}

/** The string values of a JSON text that are credentials: under a credential-like key, or shaped like a token. */
function jsonCredentials(text: string): string[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  const out: string[] = [];
  const walk = (v: unknown, name: string | undefined): void => {
    if (typeof v === 'string') {
      if (!VAR_ONLY_RE.test(v) && (name === undefined ? looksLikeToken(v) : isCredential(name, v))) out.push(v);
    } else if (Array.isArray(v)) for (const x of v) walk(x, name);
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(doc, undefined);
  return out;
}

/** The credential values inside `args` (see {@link redactArgs}), and those of the urls among them. */
export function argSecrets(args: string[]): string[] {
  const out: string[] = [];
  args.forEach((arg, i) => {
    out.push(...argCredentials(arg, i > 0 ? args[i - 1] : '').values);
    for (const url of arg.match(URL_IN_TEXT_RE) ?? []) out.push(...urlSecrets(url));
  });
  return out;
}

/** What an arg shows in place of a credential. */
export const ARG_MASK = MASK;

/**
 * Masks credential-looking args: `--token X`, `--api-key=X`, `GITHUB_TOKEN=X`, `ghp_...`,
 * `--header "Authorization: Bearer X"` (and `-H`, `--header=`, `X-API-Key: X`), a JSON arg's
 * `"apiKey": "X"`, and the credentials of urls.
 */
export function redactArgs(args: string[]): string[] {
  return args.map((arg, i) =>
    argCredentials(arg, i > 0 ? args[i - 1] : '').shown.replace(URL_IN_TEXT_RE, (m) => redactUrl(m)),
  );
}
