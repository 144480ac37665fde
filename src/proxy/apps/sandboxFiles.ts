/**
 * The answer of the MCP Apps "sandbox proxy" origin to one request, whoever serves it (the
 * bridge's second loopback listener, sandboxServer.ts; the app's custom protocol,
 * src/main/app/appViewProtocol.ts): two files of the built panel and nothing else.
 * `sandbox.html` carries the view's policy in its `Content-Security-Policy` header (from the
 * `csp` query parameter; the view's inner frame inherits it) and may be framed only by
 * `ancestors`; `sandbox.js` is the relay between the page and the view.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { viewCsp, type AppCsp } from '../../shared/appCsp.js';

const FILES: Record<string, { file: string; type: string }> = {
  '/sandbox.html': { file: 'sandbox.html', type: 'text/html; charset=utf-8' },
  '/sandbox.js': { file: 'sandbox.js', type: 'text/javascript; charset=utf-8' },
};
/** A `csp` query parameter longer than this is not read (the default policy applies). */
export const MAX_CSP_PARAM = 16 * 1024;

export interface SandboxAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

const plain = (status: number, text: string): SandboxAnswer => ({
  status,
  headers: { 'Content-Type': 'text/plain' },
  body: text,
});

/** The answer to `method` `url` (path and query) from the built panel in `dir`, framed only by `ancestors`. */
export async function sandboxAnswer(
  dir: string,
  method: string,
  url: URL,
  ancestors: readonly string[],
): Promise<SandboxAnswer> {
  const entry = FILES[url.pathname];
  if (!entry || (method !== 'GET' && method !== 'HEAD')) return plain(404, 'not found');
  const headers: Record<string, string> = {
    'Content-Type': entry.type,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
  if (entry.file === 'sandbox.html') {
    const param = url.searchParams.get('csp') ?? '';
    let csp: AppCsp | undefined;
    try {
      csp = param && param.length <= MAX_CSP_PARAM ? (JSON.parse(param) as AppCsp) : undefined;
    } catch {
      csp = undefined;
    }
    headers['Content-Security-Policy'] = `${viewCsp(csp)}; frame-ancestors ${ancestors.join(' ') || "'none'"}`;
  }
  try {
    const body = await readFile(join(dir, entry.file));
    return { status: 200, headers, body: method === 'HEAD' ? '' : body };
  } catch {
    return plain(404, 'not found');
  }
}
