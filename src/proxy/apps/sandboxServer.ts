/**
 * The "sandbox proxy" of MCP Apps views for pages served by the bridge: a second loopback
 * listener, so a view never runs on the panel's origin (and never reaches the bridge's API,
 * which is on the other origin and needs the token). It serves the two files of sandboxFiles.ts
 * (framed only by the panel's origins), to requests naming its own host only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sandboxAnswer } from './sandboxFiles.js';

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
    const hostOk = req.headers.host === `${this.host}:${this.port}` || req.headers.host === `localhost:${this.port}`;
    if (!hostOk) {
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end('forbidden');
      return;
    }
    const a = await sandboxAnswer(
      this.dir,
      req.method ?? 'GET',
      new URL(req.url ?? '/', 'http://sandbox'),
      this.ancestors(),
    );
    res.writeHead(a.status, a.headers).end(req.method === 'HEAD' ? undefined : a.body);
  }
}
