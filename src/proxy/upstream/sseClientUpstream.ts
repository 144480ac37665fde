/**
 * The SDK's legacy SSE client transport as an upstream: credentials in the url's userinfo
 * become a Basic Authorization header (fetch refuses a url that carries them), the
 * headers go on the GET too, and every error it reports is rewritten credential-free, with
 * the HTTP status kept (`HTTP 401 Unauthorized from <redacted url>`).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describeConnectError, httpStatusError, httpStatusOf } from './upstreamErrors.js';

/** A url without userinfo, and the header the userinfo stood for. */
export function splitCredentials(
  url: URL,
  headers: Record<string, string>,
): { url: URL; headers: Record<string, string> } {
  if (!url.username && !url.password) return { url, headers };
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  const out = { ...headers };
  if (!Object.keys(out).some((k) => k.toLowerCase() === 'authorization')) {
    const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    out.Authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  }
  return { url: bare, headers: out };
}

/** One SSE error as a clean Error: its status (SseError.code, or `(HTTP 401)` in a POST error) kept. */
function sseError(err: unknown, url: URL): Error {
  const message = err instanceof Error ? err.message : String(err);
  const status = httpStatusOf(err) ?? Number(/\(HTTP (\d{3})\)/.exec(message)?.[1] ?? NaN);
  if (Number.isInteger(status) && status >= 100 && status < 600) return httpStatusError(status, url);
  return describeConnectError(err, url);
}

export async function sseClientUpstream(url: URL, headers: Record<string, string>): Promise<Transport> {
  const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
  const plain = splitCredentials(url, headers);
  const inner = new SSEClientTransport(plain.url, {
    requestInit: { headers: plain.headers },
    // The SSE GET also needs the headers (for example Authorization).
    eventSourceInit: {
      fetch: (input: string | URL | Request, init?: RequestInit) =>
        fetch(input, {
          ...init,
          headers: {
            ...plain.headers,
            ...(init?.headers as Record<string, string> | undefined),
            Accept: 'text/event-stream',
          },
        }),
    },
  });
  const outer: Transport = {
    start: () => inner.start().catch((e: unknown) => Promise.reject(sseError(e, url))),
    send: (m: JSONRPCMessage) => inner.send(m).catch((e: unknown) => Promise.reject(sseError(e, url))),
    close: () => inner.close(),
    setProtocolVersion: (v: string) => inner.setProtocolVersion?.(v),
  };
  inner.onmessage = (m: JSONRPCMessage) => outer.onmessage?.(m);
  inner.onerror = (e) => outer.onerror?.(sseError(e, url));
  inner.onclose = () => outer.onclose?.();
  return outer;
}
