// Test harness for BridgeHttpServer: a session handler backed by real SDK McpServers,
// a status bus, and a raw HTTP helper for requests fetch() refuses to make (bad Host).
import http from 'node:http';
import { afterEach } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import {
  BridgeHttpServer,
  type BridgeHttpOptions,
  type McpRoute,
  type McpSessionHandler,
} from '../../src/proxy/bridge/httpBridgeServer.js';
import { generateToken } from '../../src/proxy/bridge/security.js';
import { Logger } from '../../src/proxy/common/logger.js';
import { waitFor } from './waitFor.js';

export type RouteState = ReturnType<McpSessionHandler['routeState']>;

/** A handler whose every session is a fresh real McpServer with `echo` and `count` tools. */
export class TestHandler implements McpSessionHandler {
  readonly routes = new Map<string | undefined, RouteState>([
    [undefined, 'ok'],
    ['alpha', 'ok'],
    ['beta', { notReady: 'starting' }],
  ]);
  readonly connected: { route: McpRoute; server: McpServer; closed: boolean }[] = [];
  failConnect = false;

  async connect(transport: Transport, route: McpRoute): Promise<void> {
    if (this.failConnect) throw new Error('handler refuses');
    const label = route.serverId ?? 'all';
    const server = new McpServer({ name: `test-${label}`, version: '1.0.0' });
    server.registerTool('echo', { description: 'echoes', inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text: `${label}:${route.kind}:${text}` }],
    }));
    server.registerTool(
      'count',
      { description: 'counts with progress', inputSchema: { steps: z.number() } },
      async ({ steps }, extra) => {
        const progressToken = extra._meta?.progressToken;
        for (let i = 1; i <= steps; i++) {
          if (progressToken !== undefined) {
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress: i, total: steps },
            });
          }
          await new Promise((r) => setTimeout(r, 5));
        }
        return { content: [{ type: 'text', text: `counted ${steps}` }] };
      },
    );
    const record = { route, server, closed: false };
    server.server.onclose = () => {
      record.closed = true;
    };
    this.connected.push(record);
    await server.connect(transport);
  }

  routeState(serverId: string | undefined): RouteState {
    return this.routes.get(serverId) ?? 'unknown';
  }
}

/** A status source with change notification. */
export class StatusBus {
  current: unknown = { bridge: { state: 'ready' }, servers: [] };
  private readonly listeners = new Set<(s: unknown) => void>();
  publish(s: unknown): void {
    this.current = s;
    for (const l of this.listeners) l(s);
  }
  subscribe = (cb: (s: unknown) => void): (() => void) => {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  };
  get listenerCount(): number {
    return this.listeners.size;
  }
}

export interface Harness {
  server: BridgeHttpServer;
  port: number;
  url: string;
  token: string;
  handler: TestHandler;
  bus: StatusBus;
  logLines: string[];
  auth: Record<string, string>;
}

/**
 * For a test file: a list of cleanups run after each test (last first, failures ignored),
 * and `bridge()`, which starts a bridge that is closed after the test.
 */
export function bridgePerTest(): {
  cleanups: Array<() => Promise<unknown> | unknown>;
  bridge: (overrides?: Partial<BridgeHttpOptions>) => Promise<Harness>;
} {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => {});
  });
  const bridge = async (overrides: Partial<BridgeHttpOptions> = {}): Promise<Harness> => {
    const h = await startBridge(overrides);
    cleanups.push(() => h.server.close());
    return h;
  };
  return { cleanups, bridge };
}

/** Starts a bridge on 127.0.0.1 port 0 with the test handler. */
export async function startBridge(overrides: Partial<BridgeHttpOptions> = {}): Promise<Harness> {
  const token = generateToken();
  const handler = new TestHandler();
  const bus = new StatusBus();
  const logLines: string[] = [];
  const logger = new Logger('http', { level: 'debug', sinks: [{ write: (l) => logLines.push(l) }] });
  const server = new BridgeHttpServer({
    port: 0,
    token,
    handler,
    status: () => bus.current,
    subscribeStatus: bus.subscribe,
    logger,
    ...overrides,
  });
  const { port, url } = await server.listen();
  return { server, port, url, token, handler, bus, logLines, auth: { Authorization: `Bearer ${token}` } };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request over a fresh connection, with full control of the headers (Host included). */
export function rawRequest(
  port: number,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer; chunks?: Buffer[] },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    // The server may answer (413) and close before the whole body is written.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    req.setTimeout(10_000, () => req.destroy(new Error('raw request timed out')));
    if (opts.chunks) {
      for (const c of opts.chunks) req.write(c);
      req.end();
    } else req.end(opts.body);
  });
}

/** Opens a streaming GET and collects its body until `until` matches or the timeout hits. */
export function rawStream(
  port: number,
  path: string,
  headers: Record<string, string>,
  until: (text: string) => boolean,
  timeoutMs = 5_000,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let text = '';
      const done = () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
      };
      if (res.statusCode !== 200) {
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', done);
        return;
      }
      res.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        if (until(text)) done();
      });
      res.on('end', done);
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`stream ${path} did not deliver in ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end();
  });
}

export { waitFor };

/** The headers a streamable HTTP client sends with a POST. */
export const MCP_POST_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};
