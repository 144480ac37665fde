/**
 * A kept call with a view fetched from the bridge that served the page (`GET
 * /apps/views/<key>`, bearer token), with the host its view's requests go through: the
 * view's own routes for `tools/call` and `resources/read`, and `ui/open-link` opened by the
 * page in a new browsing context without opener, http(s) only (common/browserUrl.ts's rule).
 */
import type { KeptAppView } from '../../shared/appView.js';
import type { McpAppView } from './mountMcpApp.js';

/** The bridge's answer to a view's request, as `/apps/views/<key>/call|read` gives it. */
interface Answer {
  ok: boolean;
  error?: string;
  result?: Record<string, unknown>;
}

export async function httpAppView(baseUrl: string, token: string | undefined, key: string): Promise<McpAppView> {
  const base = `${baseUrl.replace(/\/+$/, '')}/apps/views/${encodeURIComponent(key)}`;
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const res = await fetch(base, { headers, cache: 'no-store' });
  const body = (await res.json().catch(() => ({}))) as KeptAppView & { error?: string };
  if (!res.ok) throw new Error(body.error ?? `the bridge answered ${res.status}`);
  if (!body.sandbox) throw new Error('the bridge serves no sandbox origin for views');
  const post = async (path: string, payload: unknown): Promise<Record<string, unknown>> => {
    const r = await fetch(`${base}/${path}`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(payload),
    });
    const a = (await r.json().catch(() => ({ ok: false, error: `the bridge answered ${r.status}` }))) as Answer;
    if (!a.ok) throw new Error(a.error ?? 'refused');
    return a.result ?? {};
  };
  return {
    server: body.server,
    tool: body.tool,
    arguments: body.arguments,
    ...(body.result ? { result: body.result } : {}),
    resource: body.resource,
    sandbox: body.sandbox,
    host: {
      callTool: (name, args) => post('call', { name, arguments: args }),
      readResource: (uri) => post('read', { uri }),
      openLink: async (url) => {
        if (!/^https?:\/\//i.test(url)) return false;
        window.open(url, '_blank', 'noopener,noreferrer');
        return true;
      },
    },
  };
}
