// Remote servers that fail in the ways a real one does, on 127.0.0.1: a port with nothing
// listening, an HTTP server that answers 401 to everything (counting what it receives, per
// path), and one that accepts connections and reads requests but never answers.
import http from 'node:http';
import net from 'node:net';
import type { Socket } from 'node:net';

/** A loopback port that was free a moment ago and has nothing listening now. */
export async function refusedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export interface FaultyServer {
  port: number;
  /** Requests (or connections, for the silent one) received, by URL path. */
  counts: Map<string, number>;
  total(): number;
  stop(): Promise<void>;
}

function track(srv: net.Server): Set<Socket> {
  const sockets = new Set<Socket>();
  srv.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return sockets;
}

async function listen(
  srv: net.Server,
  counts: Map<string, number>,
  sockets: Set<Socket>,
  port = 0,
): Promise<FaultyServer> {
  await new Promise<void>((r) => srv.listen(port, '127.0.0.1', r));
  return {
    port: (srv.address() as net.AddressInfo).port,
    counts,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => srv.close(() => r()));
    },
  };
}

function pathOf(url: string | undefined): string {
  return (url ?? '/').split('?')[0];
}

/** Answers every request (and every upgrade) with 401 and a WWW-Authenticate challenge. */
export async function unauthorizedServer(port = 0): Promise<FaultyServer> {
  const counts = new Map<string, number>();
  const count = (url?: string) => counts.set(pathOf(url), (counts.get(pathOf(url)) ?? 0) + 1);
  const srv = http.createServer((req, res) => {
    count(req.url);
    req.resume();
    res.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer realm="test"' });
    res.end('{"error":"unauthorized"}');
  });
  srv.on('upgrade', (req, socket: Socket) => {
    count(req.url);
    socket.on('error', () => undefined); // a client that resets instead of reading the answer
    socket.end(
      'HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\nContent-Length: 12\r\nConnection: close\r\n\r\nunauthorized',
    );
  });
  return listen(srv, counts, track(srv), port);
}

/** Accepts each connection and reads whatever comes, never writing a byte back. */
export async function silentServer(): Promise<FaultyServer> {
  const counts = new Map<string, number>();
  const srv = net.createServer((s) => {
    let head = '';
    let counted = false;
    s.on('data', (d: Buffer) => {
      if (counted) return;
      head += d.toString('latin1');
      const m = /^[A-Z]+ (\S+) HTTP/.exec(head);
      if (m) {
        counted = true;
        counts.set(pathOf(m[1]), (counts.get(pathOf(m[1])) ?? 0) + 1);
      }
    });
    s.on('error', () => undefined);
  });
  return listen(srv, counts, track(srv));
}
