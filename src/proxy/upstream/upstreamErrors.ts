/**
 * What a remote upstream's connection failure says: the HTTP status when there is one
 * (kept on the error as `status`, so a 401/403 can stop retries and a sign-in layer can
 * hook it), a plain reason for socket errors (`connection refused by 127.0.0.1:8080`), and
 * never a credential: every url in the text goes through redactUrl.
 */
import { STATUS_CODES } from 'node:http';
import { redactUrl, redactUrlsInText } from '../config/redact.js';

/** A non-2xx answer from the server; `status` is the HTTP status code. */
export class HttpStatusError extends Error {
  /** The answer's `WWW-Authenticate` header, for the sign-in layer (src/proxy/oauth). */
  challenge?: string;
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpStatusError';
  }
}

/** The server wants the user to sign in (OAuth): the state becomes `needs-auth`, never retried alone. */
export class SignInRequiredError extends HttpStatusError {
  readonly needsSignIn = true;
  constructor(status: number, host: string, detail?: string) {
    super(status, detail ? `sign in to ${host} (${detail})` : `sign in to ${host}`);
    this.name = 'SignInRequiredError';
  }
}

/** True for a SignInRequiredError (duck-typed: it may come through another layer). */
export function needsSignIn(err: unknown): boolean {
  return !!err && typeof err === 'object' && (err as { needsSignIn?: unknown }).needsSignIn === true;
}

/** `HTTP 401 Unauthorized from <redacted url>: <body>`, as an HttpStatusError. */
export function httpStatusError(
  status: number,
  url: URL | string,
  body = '',
  what = `HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trim(),
): HttpStatusError {
  const text = body.trim() ? `: ${redactUrlsInText(body.trim())}` : '';
  return new HttpStatusError(status, `${what} from ${redactUrl(String(url))}${text}`);
}

/** The HTTP status an error carries (ours, or the SDK's SSE errors' `code`), if any. */
export function httpStatusOf(err: unknown): number | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { status?: unknown; code?: unknown };
  if (typeof e.status === 'number' && e.status >= 100 && e.status < 600) return e.status;
  if (typeof e.code === 'number' && e.code >= 100 && e.code < 600) return e.code;
  return undefined;
}

/** 401 or 403: asking again with the same credentials cannot help. */
export function isAuthRefusal(err: unknown): boolean {
  const s = httpStatusOf(err);
  return s === 401 || s === 403;
}

const SOCKET_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/**
 * A transport error as one readable, credential-free line. Socket errors become
 * `connection refused by <host:port>`; the status of an HTTP error is kept.
 */
export function describeConnectError(err: unknown, url: URL | string): Error {
  if (err instanceof HttpStatusError) return err;
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  const text = err instanceof Error ? err.message : String(err);
  // fetch-based transports (the SDK's SSE) keep only the text: `fetch failed: connect ECONNREFUSED ...`.
  const code =
    (err as { code?: unknown })?.code ??
    (cause as { code?: unknown } | undefined)?.code ??
    /\b(E[A-Z_]{4,})\b/.exec(text)?.[1];
  const reason = typeof code === 'string' ? SOCKET_REASONS[code] : undefined;
  if (reason) {
    let host = '';
    try {
      host = new URL(String(url)).host;
    } catch {
      // no host to name
    }
    const out = new Error(host ? `${reason} by ${host}` : reason) as NodeJS.ErrnoException;
    out.code = code as string;
    return out;
  }
  const status = httpStatusOf(err);
  const message = redactUrlsInText(text);
  return status !== undefined ? new HttpStatusError(status, message) : new Error(message);
}
