/**
 * Does this server do OAuth at all? A static-token server answers 401 with a Bearer
 * challenge too, and must not send anyone to a browser. Yes when one of these answers 200
 * with JSON: the challenge's `resource_metadata`, RFC 9728's `.well-known` locations (path
 * first, then root), or RFC 8414 metadata at the origin (servers of the 2025-03-26 spec).
 * Else, as that spec has it for a server without metadata, when the default authorization
 * endpoint `<origin>/authorize` is there (see hasDefaultAuthorizeEndpoint).
 * Plain `fetch`, each bounded, without loading the SDK for a server that will never need it.
 */

const EACH_MS = 3_000;

export async function publishesOAuth(serverUrl: string, resourceMetadataUrl?: URL): Promise<boolean> {
  const u = new URL(serverUrl);
  const path = u.pathname.replace(/\/$/, '');
  const candidates = [
    resourceMetadataUrl?.href,
    path ? `${u.origin}/.well-known/oauth-protected-resource${path}` : undefined,
    `${u.origin}/.well-known/oauth-protected-resource`,
    `${u.origin}/.well-known/oauth-authorization-server`,
  ];
  for (const c of candidates) if (c && (await isJsonDocument(c))) return true;
  return hasDefaultAuthorizeEndpoint(u.origin);
}

async function isJsonDocument(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      headers: { Accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(EACH_MS),
    });
    const ok = res.ok && (res.headers.get('content-type') ?? '').includes('json');
    await res.body?.cancel().catch(() => undefined);
    return ok;
  } catch {
    return false;
  }
}

/**
 * Statuses that say no authorization endpoint answered: absent (404, 405, 410, 501), behind
 * the same wall as the MCP endpoint (401, 403), or a gateway that reached nothing (502-504).
 */
const NO_ENDPOINT = new Set([401, 403, 404, 405, 410, 501, 502, 503, 504]);

/**
 * A GET without parameters (safe: it changes nothing; no registration is tried) on the
 * 2025-03-26 default endpoint: an authorization endpoint answers it with its error page, a
 * redirect to a login, or a 400; a static-token API has no such route.
 */
async function hasDefaultAuthorizeEndpoint(origin: string): Promise<boolean> {
  try {
    const res = await fetch(`${origin}/authorize`, { redirect: 'manual', signal: AbortSignal.timeout(EACH_MS) });
    await res.body?.cancel().catch(() => undefined);
    return !NO_ENDPOINT.has(res.status);
  } catch {
    return false;
  }
}
