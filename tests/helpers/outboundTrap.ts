// A loopback HTTP proxy that refuses everything, for programs that must stay offline: set as
// their HTTP(S)_PROXY (loopback excluded by NO_PROXY), it answers every request and CONNECT with
// 403 at once, so a call home fails fast instead of waiting on the network, and it notes each
// host asked for.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OutboundTrap {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Each `host:port` something tried to reach through the proxy, in order. */
  hosts: string[];
  /** The proxy variables that route a program's outbound HTTP here and keep loopback direct. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startOutboundTrap(): Promise<OutboundTrap> {
  const hosts: string[] = [];
  const server: Server = createServer((req, res) => {
    hosts.push(hostOf(req.url ?? '', req.headers.host));
    res.writeHead(403).end();
  });
  server.on('connect', (req, socket) => {
    hosts.push(req.url ?? '?');
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const noProxy = '127.0.0.1,localhost,::1';
  return {
    url,
    hosts,
    env: {
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      NO_PROXY: noProxy,
      no_proxy: noProxy,
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function hostOf(url: string, host: string | undefined): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return host ?? '?';
  }
}
