/**
 * Decides whether a `url` with no declared type speaks streamable HTTP or legacy SSE, with
 * one `initialize` POST (both Accept types, 5 s bound). Streamable HTTP when the reply has
 * an `Mcp-Session-Id`, is a 2xx event stream, carries a JSON-RPC body, or is 406; SSE
 * otherwise (a legacy server answers the POST with 404/405). A session the probe opened is
 * closed again with DELETE. With `strict` (an upstream's first start), a 401/403, a
 * connection error or no answer in time reject instead of guessing streamable HTTP, so the
 * start fails at once with the reason.
 */
import { LATEST_PROTOCOL_VERSION } from '../common/protocolVersion.js';
import { errorText, type Logger } from '../common/logger.js';
import { splitCredentials } from './sseClientUpstream.js';
import { describeConnectError, httpStatusError, isAuthRefusal } from './upstreamErrors.js';

export const PROBE_TIMEOUT_MS = 5_000;

export async function probeTransport(
  url: string,
  headers: Record<string, string>,
  /** `bearerIsHttp`: a 401/403 with a Bearer challenge means streamable HTTP (a sign-in follows). */
  opts: { timeoutMs?: number; logger?: Logger; strict?: boolean; bearerIsHttp?: boolean } = {},
): Promise<'http' | 'sse'> {
  const ctrl = new AbortController();
  const timeoutMs = opts.timeoutMs ?? PROBE_TIMEOUT_MS;
  const timer = setTimeout(() => ctrl.abort(), timeoutMs);
  // fetch refuses a url with userinfo: it becomes a Basic Authorization header.
  const plain = splitCredentials(new URL(url), headers);
  const target = plain.url.href;
  headers = plain.headers;
  try {
    const res = await fetch(target, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'qiming-probe',
        method: 'initialize',
        params: {
          protocolVersion: LATEST_PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: 'qiming-mcp-probe', version: '1' },
        },
      }),
      signal: ctrl.signal,
    });
    const refused = res.status === 401 || res.status === 403;
    if (refused && opts.bearerIsHttp && /(^|[\s,])bearer(\s|$)/i.test(res.headers.get('www-authenticate') ?? '')) {
      await res.body?.cancel().catch(() => undefined);
      return 'http';
    }
    if (opts.strict && refused) {
      const body = await res.text().catch(() => '');
      throw httpStatusError(res.status, url, body.slice(0, 2_000));
    }
    const sessionId = res.headers.get('mcp-session-id');
    const type = res.headers.get('content-type') ?? '';
    let verdict: 'http' | 'sse' = 'sse';
    if (sessionId || res.status === 406) verdict = 'http';
    else if (res.ok && type.includes('text/event-stream')) verdict = 'http';
    else if (type.includes('application/json')) {
      const body = (await res.json().catch(() => undefined)) as { jsonrpc?: string } | undefined;
      if (body && body.jsonrpc === '2.0') verdict = 'http';
    }
    await res.body?.cancel().catch(() => undefined);
    if (sessionId) {
      await fetch(target, {
        method: 'DELETE',
        headers: { ...headers, 'Mcp-Session-Id': sessionId },
        signal: ctrl.signal,
      })
        .then((r) => r.body?.cancel())
        .catch(() => undefined);
    }
    opts.logger?.debug(`probe ${verdict}: status ${res.status}, content-type ${type || 'none'}`);
    return verdict;
  } catch (err) {
    if (opts.strict) {
      if (isAuthRefusal(err)) throw err;
      if (ctrl.signal.aborted) throw new Error(`no answer to the transport probe within ${timeoutMs} ms`);
      throw describeConnectError(err, url);
    }
    // Unreachable now: assume the modern transport; the reconnecting wrapper retries it.
    opts.logger?.warn(
      `transport probe failed (${errorText(describeConnectError(err, url))}); assuming streamable HTTP`,
    );
    return 'http';
  } finally {
    clearTimeout(timer);
  }
}
