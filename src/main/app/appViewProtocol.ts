/**
 * The MCP Apps "sandbox proxy" origin of the app's window: the window's page is a `file://`
 * page, so a view's frame needs an origin of its own, the custom protocol
 * `qiming-app://sandbox/` (privileged as standard and secure before ready, served at ready).
 * It answers the two sandbox files of the built panel (proxy apps/sandboxFiles.ts, the same
 * answer as the bridge's second loopback origin) and nothing else, framed only by the app's
 * pages. Written against a narrow `ProtocolLike` that Electron's `protocol` implements.
 */
import { sandboxAnswer } from '../../proxy/index.js';

export const APP_VIEW_SCHEME = 'qiming-app';
const HOST = 'sandbox';
/** The sandbox page a view's outer frame loads in the app (`mountMcpApp`'s `sandbox`). */
export const APP_VIEW_SANDBOX_URL = `${APP_VIEW_SCHEME}://${HOST}/sandbox.html`;

/** The part of Electron's `protocol` used here. */
export interface ProtocolLike {
  registerSchemesAsPrivileged(schemes: { scheme: string; privileges: Record<string, boolean | undefined> }[]): void;
  handle(scheme: string, handler: (request: Request) => Response | Promise<Response>): void;
}

/** Before the app is ready: the scheme is a standard, secure origin (its own, storage and fetch as http's). */
export function privilegeAppViewScheme(protocol: Pick<ProtocolLike, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_VIEW_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/**
 * At ready: serves the sandbox files of the built panel in `panelDir` on the scheme, framed
 * only by `ancestors` (CSP sources; default `file:`, the app's own pages).
 */
export function serveAppViewScheme(
  protocol: Pick<ProtocolLike, 'handle'>,
  panelDir: string,
  ancestors: readonly string[] = ['file:'],
): void {
  protocol.handle(APP_VIEW_SCHEME, (request) => appViewAnswer(request, panelDir, ancestors));
}

/** The scheme's answer to `request`: a sandbox file on its one host, else 404. */
export async function appViewAnswer(
  request: Request,
  panelDir: string,
  ancestors: readonly string[],
): Promise<Response> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return new Response('not found', { status: 404 });
  }
  if (url.protocol !== `${APP_VIEW_SCHEME}:` || url.host !== HOST) return new Response('not found', { status: 404 });
  const a = await sandboxAnswer(panelDir, request.method, url, ancestors);
  const body = typeof a.body === 'string' ? a.body : new Uint8Array(a.body);
  return new Response(request.method === 'HEAD' ? null : body, { status: a.status, headers: a.headers });
}
