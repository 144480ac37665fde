/**
 * Which era a remote (url) server speaks, decided the way 2026-07-28 "Streamable HTTP:
 * Backward Compatibility" says: one modern request (`server/discover` with the envelope and
 * the request metadata headers). A DiscoverResult, or a 4xx whose body is a recognized
 * modern JSON-RPC error (-32020/-32021/-32022), means modern; any other answer (a legacy
 * server's 400 "not initialized", 404, 405, a non-JSON body) means legacy, and the caller
 * goes on with `initialize` as before. Like the transport probe (transportProbe.ts) it runs
 * once per start, bounded in time; a refused connection or no answer reject, so the start
 * fails at once with the reason. A 401/403 is answered '2025-11-25': the legacy path signs in
 * (OAuth) or reports it.
 */
import { splitCredentials } from './sseClientUpstream.js';
import { describeConnectError } from './upstreamErrors.js';
import type { Logger } from '../common/logger.js';
import type { RpcErrorObject } from '../jsonrpc/jsonRpc.js';
import {
  isDiscoverResult,
  isRev2026Error,
  REV2026_PROTOCOL_VERSION,
  supportedVersionsOf,
  withEnvelope,
  type Envelope,
} from '../protocol/rev2026-07-28/vocabulary.js';
import { rev2026Headers } from '../protocol/rev2026-07-28/httpClientTransport.js';

/** The revision a server answered the probe in. */
export type ProbedRevision = '2026-07-28' | '2025-11-25';

/** The first JSON-RPC message of a JSON or event-stream body. */
function firstMessage(text: string, type: string): Record<string, unknown> | undefined {
  const candidates = type.includes('text/event-stream')
    ? text
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
    : [text];
  for (const c of candidates) {
    try {
      const m = JSON.parse(c) as Record<string, unknown>;
      if (m && m.jsonrpc === '2.0' && ('result' in m || 'error' in m)) return m;
    } catch {
      // not this one
    }
  }
  return undefined;
}

export async function probeHttpRevision(
  url: string,
  headers: Record<string, string>,
  env: Envelope,
  opts: { timeoutMs: number; logger?: Logger },
): Promise<ProbedRevision> {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), opts.timeoutMs);
  const plain = splitCredentials(new URL(url), headers);
  const message = {
    jsonrpc: '2.0',
    id: 'qiming-era-probe',
    method: 'server/discover',
    params: withEnvelope(undefined, env),
  };
  try {
    const res = await fetch(plain.url.href, {
      method: 'POST',
      headers: {
        ...plain.headers,
        ...rev2026Headers(message),
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(message),
      signal: ctrl.signal,
    });
    const text = (await res.text().catch(() => '')).slice(0, 64_000);
    // A server that wants credentials first: the legacy path (with its OAuth sign-in and its
    // 401/403 reporting) takes over; a 2026-only server behind OAuth is not detected yet.
    if (res.status === 401 || res.status === 403) {
      opts.logger?.debug(`era probe: HTTP ${res.status}, left to the sign-in of the legacy path`);
      return '2025-11-25';
    }
    const reply = firstMessage(text, res.headers.get('content-type') ?? '');
    const error = reply?.error as RpcErrorObject | undefined;
    let era: ProbedRevision = '2025-11-25';
    if (res.ok && isDiscoverResult(reply?.result as Record<string, unknown> | undefined)) era = '2026-07-28';
    else if (isRev2026Error(error)) {
      const supported = supportedVersionsOf(error!);
      if (supported.length > 0 && !supported.includes(REV2026_PROTOCOL_VERSION)) {
        throw new Error(
          `server speaks only MCP ${supported.join(', ')}; this proxy speaks 2025-11-25 and ${REV2026_PROTOCOL_VERSION}`,
        );
      }
      era = '2026-07-28';
    }
    opts.logger?.debug(`era probe: ${era} (HTTP ${res.status})`);
    return era;
  } catch (err) {
    if (ctrl.signal.aborted)
      throw new Error(`no answer to the protocol probe (server/discover) within ${opts.timeoutMs} ms`);
    throw describeConnectError(err, url);
  } finally {
    clearTimeout(timer);
  }
}
