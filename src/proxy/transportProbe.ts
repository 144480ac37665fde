/**
 * Decides whether a `url` with no declared type speaks streamable HTTP or legacy SSE, with
 * one `initialize` POST (both Accept types, 5 s bound). Streamable HTTP when the reply has
 * an `Mcp-Session-Id`, is a 2xx event stream, carries a JSON-RPC body, or is 406; SSE
 * otherwise (a legacy server answers the POST with 404/405). A session the probe opened is
 * closed again with DELETE.
 */
import { LATEST_PROTOCOL_VERSION } from './protocolVersion.js';
import { errorText, type Logger } from './logger.js';

export const PROBE_TIMEOUT_MS = 5_000;

export async function probeTransport(
  url: string,
  headers: Record<string, string>,
  opts: { timeoutMs?: number; logger?: Logger } = {},
): Promise<'http' | 'sse'> {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), opts.timeoutMs ?? PROBE_TIMEOUT_MS);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'qiming-probe',
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'qiming-mcp-probe', version: '1' } },
      }),
      signal: ctrl.signal,
    });
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
      await fetch(url, { method: 'DELETE', headers: { ...headers, 'Mcp-Session-Id': sessionId }, signal: ctrl.signal })
        .then((r) => r.body?.cancel())
        .catch(() => undefined);
    }
    opts.logger?.debug(`probe ${verdict}: status ${res.status}, content-type ${type || 'none'}`);
    return verdict;
  } catch (err) {
    // Unreachable now: assume the modern transport; the reconnecting wrapper retries it.
    opts.logger?.warn(`transport probe failed (${errorText(err)}); assuming streamable HTTP`);
    return 'http';
  } finally {
    clearTimeout(timer);
  }
}
