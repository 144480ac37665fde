/**
 * A kept call with a view fetched from the bridge that served the page (`GET
 * /apps/views/<key>`, bearer token; a drift's 409 as a {@link ViewDriftError}), with the host
 * its view's requests go through: the view's own routes for `tools/call` and
 * `resources/read`, and `ui/open-link` opened by the page in a new browsing context without
 * opener, http(s) only (common/browserUrl.ts's rule); and the accept of a drift
 * (`POST /apps/views/<key>/accept`).
 */
import type { AppViewAnswer, AppViewDrift, KeptAppView } from '../../shared/appView.js';
import type { McpAppView } from './mountMcpApp.js';
import { ViewDriftError, keptView, resultOf } from './keptView.js';

const viewBase = (baseUrl: string, key: string) =>
  `${baseUrl.replace(/\/+$/, '')}/apps/views/${encodeURIComponent(key)}`;
const auth = (token: string | undefined): Record<string, string> => (token ? { Authorization: `Bearer ${token}` } : {});

async function post(url: string, token: string | undefined, payload: unknown): Promise<AppViewAnswer> {
  try {
    const r = await fetch(url, {
      method: 'POST',
      headers: { ...auth(token), 'Content-Type': 'application/json' },
      body: JSON.stringify(payload),
    });
    const a = (await r.json().catch(() => undefined)) as (AppViewAnswer & { accepted?: string }) | undefined;
    if (!r.ok || !a) return { ok: false, error: a?.error ?? `the bridge answered ${r.status}` };
    return a.accepted !== undefined ? { ok: true } : a;
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

export async function httpAppView(baseUrl: string, token: string | undefined, key: string): Promise<McpAppView> {
  const base = viewBase(baseUrl, key);
  const res = await fetch(base, { headers: auth(token), cache: 'no-store' });
  const body = (await res.json().catch(() => ({}))) as KeptAppView & { error?: string; drift?: AppViewDrift };
  const error = body.error ?? `the bridge answered ${res.status}`;
  if (res.status === 409 && body.drift) throw new ViewDriftError(error, body.drift);
  if (!res.ok) throw new Error(error);
  return keptView(body, {
    callTool: async (name, args) => resultOf(await post(`${base}/call`, token, { name, arguments: args })),
    readResource: async (uri) => resultOf(await post(`${base}/read`, token, { uri })),
    openLink: async (url) => {
      if (!/^https?:\/\//i.test(url)) return false;
      window.open(url, '_blank', 'noopener,noreferrer');
      return true;
    },
  });
}

/** Accepts the drift of view `key` by its `hash`. */
export function httpAcceptView(
  baseUrl: string,
  token: string | undefined,
  key: string,
  hash: string,
): Promise<AppViewAnswer> {
  return post(`${viewBase(baseUrl, key)}/accept`, token, { hash });
}
