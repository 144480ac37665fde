/**
 * A stand-in for the bridge's status HTTP API, for testing the status panel in a real
 * browser until the real bridge exists: a real node http server on 127.0.0.1 (port 0)
 * that serves dist/renderer statically at `/` (no token) and `/status`, `/events` (SSE),
 * `POST /servers/<id>/restart` behind `Authorization: Bearer <token>`. Tests drive the status.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import type { RuntimeStatus } from '../../src/shared/status.js';
import type { RestartResult } from '../../src/shared/ipcContract.js';

/** One request the harness saw (for assertions on what the page sent). */
export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

export interface StatusHttpHarness {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly token: string;
  /** The panel's URL with the token in the fragment, as the app would open it. */
  readonly pageUrl: string;
  readonly requests: SeenRequest[];
  /** Replaces the status and pushes it to every open `/events` stream. */
  setStatus(status: RuntimeStatus): void;
  /** Decides the answer of `POST /servers/<id>/restart` (default: `{ ok: true }`). */
  onRestart: (id: string) => Promise<RestartResult> | RestartResult;
  /** Decides the answer of `POST /servers/<id>/sign-in` and `/sign-out` (default: `{ ok: true }`). */
  onAuth: (id: string, action: 'sign-in' | 'sign-out') => Promise<RestartResult> | RestartResult;
  /** Number of open `/events` streams. */
  eventStreams(): number;
  /** Ends every open `/events` stream cleanly (the server stays up). */
  dropEvents(): void;
  /** Simulates a dead bridge: closes the listener and every connection. */
  goDown(): Promise<void>;
  /** Brings the bridge back on the same port. */
  goUp(): Promise<void>;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Starts the harness serving `staticDir` (a built dist/renderer). */
export async function startStatusHttpHarness(options: {
  staticDir: string;
  status: RuntimeStatus;
  token?: string;
  keepAliveMs?: number;
  /** Start each `/events` stream with the current status (default true). */
  snapshotOnConnect?: boolean;
}): Promise<StatusHttpHarness> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  let status = options.status;
  const streams = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const requests: SeenRequest[] = [];
  let port = 0;
  let server: Server;

  const authorized = (req: IncomingMessage) => req.headers.authorization === `Bearer ${token}`;
  const json = (res: ServerResponse, code: number, body: unknown) => {
    res.writeHead(code, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const sendStatus = (res: ServerResponse) => res.write(`event: status\ndata: ${JSON.stringify(status)}\n\n`);

  const harness: StatusHttpHarness = {
    origin: '',
    token,
    pageUrl: '',
    requests,
    onRestart: () => ({ ok: true }),
    onAuth: () => ({ ok: true }),
    setStatus(next) {
      status = next;
      for (const res of streams) sendStatus(res);
    },
    eventStreams: () => streams.size,
    dropEvents() {
      for (const res of streams) res.end();
      streams.clear();
    },
    async goDown() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      streams.clear();
    },
    async goUp() {
      await listen(port);
    },
    async close() {
      await harness.goDown().catch(() => undefined);
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization });
    // Same DNS-rebinding rule as the bridge: only loopback Host headers.
    if (!/^(127\.0\.0\.1|localhost)(:\d+)?$/.test(req.headers.host ?? '')) return json(res, 403, { error: 'bad host' });

    if (
      req.method === 'GET' &&
      !path.startsWith('/status') &&
      !path.startsWith('/events') &&
      !path.startsWith('/servers/') &&
      path !== '/config'
    ) {
      const rel = path === '/' ? 'index.html' : normalize(decodeURIComponent(path)).replace(/^[/\\]+/, '');
      if (rel.split(sep).includes('..')) return json(res, 404, { error: 'not found' });
      try {
        const body = await readFile(join(options.staticDir, rel));
        res.writeHead(200, {
          'Content-Type': CONTENT_TYPES[extname(rel)] ?? 'application/octet-stream',
          'Cache-Control': 'no-store',
        });
        return res.end(body);
      } catch {
        return json(res, 404, { error: 'not found' });
      }
    }
    if (!authorized(req)) return json(res, 401, { error: 'unauthorized' });
    if (req.method === 'GET' && path === '/status') return json(res, 200, status);
    // Like a bridge started on inline JSON: nothing to edit (the panel then hides its management bar).
    if (req.method === 'GET' && path === '/config')
      return json(res, 200, { ok: false, editable: false, error: 'the stand-in bridge has no config file' });
    if (req.method === 'GET' && path === '/events') {
      res.writeHead(200, {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-cache',
        'X-Accel-Buffering': 'no',
      });
      res.write(': connected\n\n');
      if (options.snapshotOnConnect ?? true) sendStatus(res);
      streams.add(res);
      const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), options.keepAliveMs ?? 15_000);
      res.on('close', () => {
        clearInterval(keepAlive);
        streams.delete(res);
      });
      return;
    }
    const auth = /^\/servers\/([^/]+)\/(sign-in|sign-out)$/.exec(path);
    if (req.method === 'POST' && auth)
      return json(res, 200, await harness.onAuth(decodeURIComponent(auth[1]!), auth[2] as 'sign-in' | 'sign-out'));
    const restart = /^\/servers\/([^/]+)\/restart$/.exec(path);
    if (req.method === 'POST' && restart) {
      const result = await harness.onRestart(decodeURIComponent(restart[1]!));
      // An expected refusal is an answer, not an HTTP error (same rule as the IPC handlers).
      return json(res, 200, result);
    }
    json(res, 404, { error: 'not found' });
  };

  const listen = (onPort: number) =>
    new Promise<void>((resolve, reject) => {
      server = createServer((req, res) => {
        handle(req, res).catch((err: unknown) => {
          if (!res.headersSent) json(res, 500, { error: String(err) });
          else res.destroy();
        });
      });
      server.on('connection', (s) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      server.once('error', reject);
      server.listen(onPort, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });

  await listen(0);
  const origin = `http://127.0.0.1:${port}`;
  return Object.assign(harness, { origin, pageUrl: `${origin}/#token=${token}` });
}
