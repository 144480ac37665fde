/**
 * One GET with a deadline over the whole exchange (connect, headers, body) and a cap on the
 * body, so an offline, slow or endless source fails fast with a message instead of a hang or
 * unbounded memory.
 */
import { InstallError } from './installError.js';

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

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
    try {
      res = await fetch(url, {
        signal: abort.signal,
        headers: { accept: 'application/json, */*' },
        redirect: 'follow',
      });
    } catch (err) {
      if (abort.signal.aborted) throw new InstallError(`${what} did not answer within ${limits.timeoutMs} ms`, 504);
      throw new InstallError(`cannot reach ${what} (${causeOf(err)})`, 502);
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
