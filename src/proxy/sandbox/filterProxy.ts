/**
 * The filtering HTTP(S) proxy of a server whose sandbox allows some hosts: `CONNECT host:port`
 * (HTTPS and any TLS, tunnelled untouched) and plain `http://` requests in absolute form, each
 * let through only to a host the allow-list names (hostPattern.ts), otherwise answered 403 and
 * logged once per host as a refusal. It listens on a Unix socket (Linux: mounted into the
 * server's network namespace, see bwrapArgs.ts) or on 127.0.0.1 (macOS). The proxy resolves
 * names itself; the server gets no DNS. Not covered: other protocols (raw TCP, UDP, DNS),
 * and clients that ignore the proxy variables, which then reach nothing. Bounded: header size
 * and time, connections, idle tunnels.
 */
import http from 'node:http';
import net from 'node:net';
import { rmSync } from 'node:fs';
import type { Logger } from '../common/logger.js';
import { hostAllowed, type HostRule } from './hostPattern.js';

const MAX_HEADER_BYTES = 16 * 1024;
const HEADERS_TIMEOUT_MS = 10_000;
const MAX_CONNECTIONS = 128;
/** A tunnel or request with no traffic this long is closed. */
const IDLE_MS = 5 * 60_000;
/** Hosts whose refusal is logged, at most (each once). */
const MAX_LOGGED_HOSTS = 100;

export interface FilterProxy {
  /** `http://127.0.0.1:<port>` (TCP) or the socket path. */
  readonly where: string;
  readonly port?: number;
  close(): Promise<void>;
}

/** `host:port` of a CONNECT target or a URL; undefined when malformed. */
export function splitTarget(target: string, defaultPort: number): { host: string; port: number } | undefined {
  const m = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(target) ?? /^([^:[\]/]+)(?::(\d{1,5}))?$/.exec(target);
  if (!m) return undefined;
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  return port >= 1 && port <= 65535 ? { host: m[1], port } : undefined;
}

/** Starts the proxy on `socketPath`, or on 127.0.0.1 port 0 when none is given. */
export async function startFilterProxy(
  rules: readonly HostRule[],
  log: Logger,
  socketPath?: string,
): Promise<FilterProxy> {
  const logged = new Set<string>();
  const refuse = (host: string, port: number) => {
    const key = `${host}:${port}`;
    if (logged.has(key) || logged.size >= MAX_LOGGED_HOSTS) return;
    logged.add(key);
    log.warn(`sandbox refused a connection to ${key}: not in sandbox.network.allow`);
  };
  const sockets = new Set<net.Socket>();
  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = IDLE_MS;
  server.maxConnections = MAX_CONNECTIONS;
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.setTimeout(IDLE_MS, () => s.destroy());
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const t = splitTarget(req.url ?? '', 443);
    if (!t || !hostAllowed(rules, t.host, t.port)) {
      if (t) refuse(t.host, t.port);
      client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const upstream = net.connect(t.port, t.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.setTimeout(IDLE_MS, () => upstream.destroy());
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
    client.on('error', () => upstream.destroy());
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('a proxy request needs an absolute http:// URL\n');
      return;
    }
    const port = url.port ? Number(url.port) : 80;
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (url.protocol !== 'http:' || !hostAllowed(rules, host, port)) {
      refuse(host, port);
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`sandbox: ${host}:${port} is not allowed\n`);
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const out = http.request({ host, port, method: req.method, path: `${url.pathname}${url.search}`, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    out.setTimeout(IDLE_MS, () => out.destroy());
    out.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.pipe(out);
  });
  if (socketPath) rmSync(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (socketPath) server.listen(socketPath, resolve);
    else server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : undefined;
  return {
    where: socketPath ?? `http://127.0.0.1:${port}`,
    ...(port !== undefined ? { port } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => {
          if (socketPath) rmSync(socketPath, { force: true });
          resolve();
        });
      }),
  };
}
