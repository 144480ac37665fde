/**
 * The "sandbox proxy" of MCP Apps views for pages served by the bridge: a second loopback
 * listener, so a view never runs on the panel's origin (and never reaches the bridge's API,
 * which is on the other origin and needs the token). It serves two files of the built panel,
 * nothing else: `sandbox.html` (the view's policy in its `Content-Security-Policy` header, from
 * the `csp` query parameter, which the inner frame of the view inherits; framed only by the
 * panel's origins) and `sandbox.js` (the relay between the page and the view).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { viewCsp, type AppCsp } from '../../shared/appCsp.js';

const FILES: Record<string, { file: string; type: string }> = {
  '/sandbox.html': { file: 'sandbox.html', type: 'text/html; charset=utf-8' },
  '/sandbox.js': { file: 'sandbox.js', type: 'text/javascript; charset=utf-8' },
};
/** A `csp` query parameter longer than this is refused. */
const MAX_CSP_PARAM = 16 * 1024;

export class SandboxServer {
  private server?: Server;
  private port?: number;

  constructor(
    private readonly dir: string,
    /** The origins allowed to frame the sandbox (the panel's). */
    private readonly ancestors: () => string[],
    private readonly host = '127.0.0.1',
  ) {}

  async listen(): Promise<number> {
    const server = createServer((req, res) => void this.serve(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, this.host, () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    return this.port;
  }

  /** The sandbox page's URL, once it listens. */
  get url(): string | undefined {
    return this.port === undefined ? undefined : `http://${this.host}:${this.port}/sandbox.html`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const hostOk = req.headers.host === `${this.host}:${this.port}` || req.headers.host === `localhost:${this.port}`;
    const entry = FILES[url.pathname];
    if (!hostOk || !entry || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(hostOk ? 404 : 403, { 'Content-Type': 'text/plain' }).end(hostOk ? 'not found' : 'forbidden');
      return;
    }
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
      headers['Content-Security-Policy'] = `${viewCsp(csp)}; frame-ancestors ${this.ancestors().join(' ') || "'none'"}`;
    }
    try {
      const body = await readFile(join(this.dir, entry.file));
      res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  }
}
