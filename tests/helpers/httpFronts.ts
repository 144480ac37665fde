// Two loopback HTTP fronts that let an HTTP-only MCP client (the conformance suite, which
// takes nothing but a URL) reach a path it could not reach by itself:
// - `stdioFront(command, args)`: streamable HTTP in front of a stdio MCP endpoint. Each
//   HTTP session (each `initialize`) spawns its own child, as a stdio client would, and
//   messages are relayed unchanged both ways (SDK v1 `StreamableHTTPServerTransport` on the
//   HTTP side, raw newline JSON on the pipes). A message from the child that is not a
//   response rides the stream of the oldest request in flight (else the GET stream), since
//   a pipe carries no request relation. Host/Origin must be loopback (as the conformance
//   target checks them), so the front's own answers are the same whatever sits behind it.
// - `authFront(target, token)`: a byte-level reverse proxy to the bridge that adds
//   `Authorization: Bearer <token>` (what any configured client of the bridge sends) and
//   maps a loopback `Host`/`Origin` from its own port to the bridge's; every other header
//   and every body byte is passed untouched, streams included.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { waitNoProcess } from './processGone.js';

export interface HttpFront {
  url: string;
  /** Every child a stdio front spawned (none for an auth front). */
  pids: number[];
  close: () => Promise<void>;
}

const LOCAL = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

function loopbackOnly(req: http.IncomingMessage): boolean {
  if (!LOCAL.test(req.headers.host ?? '')) return false;
  if (req.headers.origin === undefined) return true;
  try {
    return LOCAL.test(new URL(req.headers.origin).host);
  } catch {
    return false;
  }
}

function fail(res: http.ServerResponse, status: number, message: string): void {
  if (res.headersSent) return void res.end();
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

/** One child of a stdio front: spawned ahead of the session that will take it. */
function spawnChild(
  command: string,
  args: string[],
  env: Record<string, string>,
): { transport: StdioClientTransport; started: Promise<void> } {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'ignore',
  });
  return { transport, started: transport.start() };
}

/**
 * Streamable HTTP in front of `command args` (a stdio MCP endpoint), one child per session.
 * One child is kept spawned ahead, so a session's `initialize` does not wait for a boot.
 */
export async function stdioFront(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<HttpFront> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const children: StdioClientTransport[] = [];
  const pids: number[] = [];
  let spare: ReturnType<typeof spawnChild> | undefined;
  const next = () => {
    const c = spawnChild(command, args, env);
    children.push(c.transport);
    void c.started.then(
      () => c.transport.pid && pids.push(c.transport.pid),
      () => undefined,
    );
    return c;
  };
  const open = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const taken = spare ?? next();
    spare = next();
    const child = taken.transport;
    const front = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, front),
    });
    const inFlight = new Set<RequestId>();
    front.onmessage = (m: JSONRPCMessage) => {
      if ('method' in m && 'id' in m) inFlight.add(m.id);
      void child.send(m).catch(() => undefined);
    };
    child.onmessage = (m: JSONRPCMessage) => {
      const response = !('method' in m) && 'id' in m;
      if (response) inFlight.delete(m.id as RequestId);
      void front
        .send(m, response ? undefined : { relatedRequestId: inFlight.values().next().value })
        .catch(() => undefined);
    };
    const end = () => {
      if (front.sessionId) sessions.delete(front.sessionId);
      void child.close().catch(() => undefined);
      void front.close().catch(() => undefined);
    };
    child.onclose = end;
    front.onclose = end;
    await taken.started;
    await front.start();
    await front.handleRequest(req, res);
  };
  const server = http.createServer((req, res) => {
    if (!loopbackOnly(req)) return fail(res, 403, 'Forbidden: Host or Origin is not local');
    const sid = req.headers['mcp-session-id'];
    const known = typeof sid === 'string' ? sessions.get(sid) : undefined;
    const handled = known
      ? known.handleRequest(req, res)
      : sid
        ? Promise.resolve(fail(res, 404, 'Session not found'))
        : open(req, res);
    handled.catch((err: unknown) => fail(res, 500, String(err)));
  });
  const port = await listen(server);
  spare = next();
  return {
    url: `http://localhost:${port}/mcp`,
    pids,
    close: async () => {
      await closeServer(server);
      await Promise.all(children.map((c) => c.close().catch(() => undefined)));
      await Promise.all(pids.map((pid) => waitNoProcess(pid, 8000)));
    },
  };
}

/** A reverse proxy to `target` (http://127.0.0.1:<port>) that adds the bridge's bearer token. */
export async function authFront(target: string, token: string): Promise<HttpFront> {
  const to = new URL(target);
  let port = 0;
  const mapHost = (value: string | undefined, withScheme: boolean): string | undefined => {
    if (value === undefined) return undefined;
    const m = (withScheme ? /^http:\/\/([^/]+)$/ : /^([^/]+)$/).exec(value);
    if (!m || !LOCAL.test(m[1]) || !m[1].endsWith(`:${port}`)) return value;
    const mapped = `${m[1].slice(0, -String(port).length)}${to.port}`;
    return withScheme ? `http://${mapped}` : mapped;
  };
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}`, host: mapHost(req.headers.host, false) };
    const origin = mapHost(req.headers.origin, true);
    if (origin !== undefined) headers.origin = origin;
    const upstream = http.request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        res.flushHeaders();
        up.pipe(res);
      },
    );
    upstream.on('error', (err) => fail(res, 502, String(err)));
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  port = await listen(server);
  return { url: `http://localhost:${port}`, pids: [], close: () => closeServer(server) };
}
