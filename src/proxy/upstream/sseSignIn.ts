/**
 * The legacy SSE transport under a sign-in (src/proxy/oauth): the current token on the
 * stream's headers, and a refused start (401/403) handed to the sign-in, which refreshes,
 * asks the user, or says no. After a refresh or a finished sign-in the stream is opened
 * once more with the new token; never more than that. The SDK's SSE errors carry no
 * `WWW-Authenticate`, so the sign-in gets a bare `Bearer` challenge and decides from the
 * server's published metadata (publishesOAuth.ts).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RequestAuth } from '../oauth/oauthSettings.js';
import { sseClientUpstream } from './sseClientUpstream.js';
import { httpStatusOf, isAuthRefusal } from './upstreamErrors.js';

export async function sseWithSignIn(url: URL, headers: Record<string, string>, auth: RequestAuth): Promise<Transport> {
  const open = async () => {
    const authorization = await auth.authorization();
    return {
      authorization,
      t: await sseClientUpstream(url, authorization ? { ...headers, Authorization: authorization } : headers),
    };
  };
  let current = await open();
  const outer: Transport = {
    start: async () => {
      wire(current.t);
      try {
        await current.t.start();
      } catch (err) {
        if (!isAuthRefusal(err) || !(await auth.refused(httpStatusOf(err)!, 'Bearer', current.authorization)))
          throw err;
        const old = current.t;
        old.onclose = old.onerror = undefined;
        await old.close().catch(() => undefined);
        current = await open();
        wire(current.t);
        await current.t.start();
      }
    },
    send: (m: JSONRPCMessage) => current.t.send(m),
    close: () => current.t.close(),
    setProtocolVersion: (v: string) => current.t.setProtocolVersion?.(v),
  };
  function wire(t: Transport): void {
    t.onmessage = (m) => outer.onmessage?.(m);
    t.onerror = (e) => outer.onerror?.(e);
    t.onclose = () => t === current.t && outer.onclose?.();
  }
  return outer;
}
