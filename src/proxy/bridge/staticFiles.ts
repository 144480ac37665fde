/**
 * Serves the status panel's files from one directory: `GET /` is `index.html`, other
 * paths are files under the directory (never outside it). Served without the bearer
 * token (the page gets the token in its URL fragment, which browsers never send), so
 * only static files live here, and a strict CSP keeps the page to its own origin.
 */
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';

/**
 * The panel's Content-Security-Policy: its own scripts, styles and API only, frames only from
 * loopback (MCP Apps views, each on the bridge's sandbox origin: apps/sandboxServer.ts) and, in
 * the app's window, from its `qiming-app://sandbox` origin (main/app/appViewProtocol.ts); no `<base>`
 * (which would re-point its relative URLs) and no form submission anywhere (its forms are
 * handled by script and never submit; `default-src` covers neither).
 */
export const STATIC_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-src http://127.0.0.1:* http://localhost:* qiming-app://sandbox; base-uri 'none'; form-action 'none'";

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const SECURITY_HEADERS = {
  'Content-Security-Policy': STATIC_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-cache',
};

/**
 * Maps a URL path to a file under `root`, or undefined when the path is malformed or
 * escapes the directory (`..`, encoded separators, NUL).
 */
export function resolveStaticPath(root: string, pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const rel = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '');
  if (rel.split('/').some((part) => part === '..')) return undefined;
  const base = resolve(root);
  const full = resolve(base, rel);
  return full.startsWith(base + sep) ? full : undefined;
}

function sendPlain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/** Answers a GET or HEAD for a static file (404 when there is none). */
export async function serveStatic(
  root: string,
  pathname: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const file = resolveStaticPath(root, pathname);
  if (!file) {
    sendPlain(res, 404, 'Not found');
    return;
  }
  try {
    const info = await stat(file);
    if (!info.isFile()) {
      sendPlain(res, 404, 'Not found');
      return;
    }
    // The panel is a few small files; reading each whole is simpler than streaming.
    const data = await readFile(file);
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': String(data.length),
    });
    res.end(req.method === 'HEAD' ? undefined : data);
  } catch {
    if (!res.headersSent) sendPlain(res, 404, 'Not found');
  }
}
