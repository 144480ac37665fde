/**
 * One GET with a deadline over the whole exchange (redirects, connect, headers, body) and a
 * cap on the body, so an offline, slow or endless source fails fast with a message instead of
 * a hang or unbounded memory. Redirects are followed by hand, at most MAX_REDIRECTS, and only
 * where the caller allows: within the first URL's origin (a registry's answers), or also to
 * another https origin (a bundle whose sha256 is checked after).
 */
import { InstallError } from './installError.js';

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  /** Where a redirect may lead: `same-origin` (the default), or `https` (that origin, or any https one). */
  redirects?: 'same-origin' | 'https';
}

export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** What a failed connection's cause says, in words (ECONNREFUSED, ENOTFOUND ...). */
function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/** The body of a 200 answer. @throws InstallError on refusal, timeout, a non-200 status or a body over the cap. */
export async function boundedGet(url: string, what: string, limits: FetchLimits): Promise<Buffer> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), limits.timeoutMs);
  try {
    let res: Response;
    let at = url;
    for (let hops = 0; ; hops++) {
      try {
        res = await fetch(at, {
          signal: abort.signal,
          headers: { accept: 'application/json, */*' },
          redirect: 'manual',
        });
      } catch (err) {
        if (abort.signal.aborted) throw new InstallError(`${what} did not answer within ${limits.timeoutMs} ms`, 504);
        throw new InstallError(`cannot reach ${what} (${causeOf(err)})`, 502);
      }
      if (!REDIRECT_STATUSES.has(res.status)) break;
      await res.body?.cancel().catch(() => undefined);
      const next = redirectTarget(url, at, res.headers.get('location'), limits.redirects ?? 'same-origin');
      if (typeof next !== 'string') throw new InstallError(`${what} redirected ${next.why}: refused`, 502);
      if (hops + 1 > MAX_REDIRECTS)
        throw new InstallError(`${what} redirected more than ${MAX_REDIRECTS} times: refused`, 502);
      at = next;
    }
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      throw new InstallError(`${what} answered HTTP ${res.status}`, 502);
    }
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > limits.maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw new InstallError(`${what} sent more than ${limits.maxBytes} bytes`, 502);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      const reader = res.body?.getReader();
      for (;;) {
        const step = reader ? await reader.read() : { done: true as const, value: undefined };
        if (step.done) break;
        size += step.value.byteLength;
        if (size > limits.maxBytes) {
          abort.abort();
          throw new InstallError(`${what} sent more than ${limits.maxBytes} bytes`, 502);
        }
        chunks.push(Buffer.from(step.value));
      }
    } catch (err) {
      if (err instanceof InstallError) throw err;
      if (abort.signal.aborted) throw new InstallError(`${what} did not answer within ${limits.timeoutMs} ms`, 504);
      throw new InstallError(`${what}: the answer broke off (${causeOf(err)})`, 502);
    }
    return Buffer.concat(chunks);
  } finally {
    clearTimeout(timer);
  }
}

/** Where a redirect from `at` to `location` leads, or why it is not followed. */
function redirectTarget(
  first: string,
  at: string,
  location: string | null,
  allow: 'same-origin' | 'https',
): string | { why: string } {
  if (!location) return { why: 'without a Location' };
  let next: URL;
  try {
    next = new URL(location, at);
  } catch {
    return { why: 'to something that is not a URL' };
  }
  if (next.origin === new URL(first).origin) return next.href;
  if (allow === 'https' && next.protocol === 'https:') return next.href;
  return {
    why: `to ${next.origin}, ${allow === 'https' ? 'neither its own origin nor https' : 'another origin than its own'}`,
  };
}
