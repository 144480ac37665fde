// Builds a Hub whose upstreams are scripted in-memory MCP servers, and downstream clients
// connected to it over in-memory transports: the multiplexing rules tested without processes.
import { Hub, type HubOptions } from '../../../src/proxy/hub/hub.js';
import { parseConfig } from '../../../src/proxy/config/config.js';
import { Logger } from '../../../src/proxy/common/logger.js';
import { JsonRpcPeer } from '../../../src/proxy/jsonrpc/jsonRpcPeer.js';
import type { RequestId, RpcNotification, RpcRequest } from '../../../src/proxy/jsonrpc/jsonRpc.js';
import { memoryPair } from './memoryPair.js';

type Handler = (
  req: RpcRequest,
  server: FakeServer,
) => Record<string, unknown> | Promise<Record<string, unknown>> | 'no-answer';

/** One scripted server: answers by method, records everything it receives. */
export class FakeServer {
  peer?: JsonRpcPeer;
  readonly requests: RpcRequest[] = [];
  readonly notifications: RpcNotification[] = [];
  tools: Record<string, unknown>[] = [];
  resources: Record<string, unknown>[] = [];
  readonly handlers: Record<string, Handler> = {};
  /** Extra fields of this server's config entry (timeoutMs...). */
  entry: Record<string, unknown> = {};

  constructor(
    readonly id: string,
    readonly capabilities: Record<string, unknown> = { tools: { listChanged: true } },
  ) {}

  attach(peer: JsonRpcPeer): void {
    this.peer = peer;
    peer.onnotification = (n) => this.notifications.push(n);
    peer.onrequest = (req) => void this.answer(req);
  }

  private async answer(req: RpcRequest): Promise<void> {
    this.requests.push(req);
    const builtIn: Record<string, Handler> = {
      initialize: () => ({
        protocolVersion: '2025-06-18',
        capabilities: this.capabilities,
        serverInfo: { name: this.id, version: '1' },
      }),
      'tools/list': () => ({ tools: this.tools }),
      'resources/list': () => ({ resources: this.resources }),
      'resources/templates/list': () => ({ resourceTemplates: [] }),
    };
    const h = this.handlers[req.method] ?? builtIn[req.method];
    if (!h) return void this.peer!.respondError(req.id, { code: -32601, message: `Method not found: ${req.method}` });
    try {
      const result = await h(req, this);
      if (result !== 'no-answer') await this.peer!.respond(req.id, result);
    } catch (err) {
      await this.peer!.respondError(req.id, { code: -32603, message: (err as Error).message });
    }
  }

  received(method: string): RpcRequest[] {
    return this.requests.filter((r) => r.method === method);
  }
  receivedNotes(method: string): RpcNotification[] {
    return this.notifications.filter((n) => n.method === method);
  }
}

/** A downstream client: its requests, the server-to-client requests it gets, its notifications. */
export class FakeClient {
  readonly notes: { n: RpcNotification; related?: RequestId }[] = [];
  readonly requests: { req: RpcRequest; related?: RequestId }[] = [];
  answer: (req: RpcRequest) => Record<string, unknown> | 'no-answer' = () => ({});

  constructor(readonly peer: JsonRpcPeer) {
    peer.onnotification = (n, related) => this.notes.push({ n, related });
    peer.onrequest = (req, related) => {
      this.requests.push({ req, related });
      const r = this.answer(req);
      if (r !== 'no-answer') void peer.respond(req.id, r);
    };
  }

  /** The session's answer to `initialize`. */
  initResult?: Record<string, unknown>;

  async init(capabilities: Record<string, unknown> = {}): Promise<void> {
    this.initResult = await this.peer.call('initialize', {
      protocolVersion: '2025-06-18',
      capabilities,
      clientInfo: { name: 't', version: '1' },
    });
    await this.peer.notify('notifications/initialized');
  }

  notesOf(method: string): { n: RpcNotification; related?: RequestId }[] {
    return this.notes.filter((x) => x.n.method === method);
  }
}

export interface Kit {
  hub: Hub;
  servers: Map<string, FakeServer>;
  connect(scope?: { serverId?: string }, capabilities?: Record<string, unknown>): Promise<FakeClient>;
  close(): Promise<void>;
}

/** A started Hub over `servers` (each configured as a stdio entry it never spawns). */
export async function startKit(
  servers: FakeServer[],
  extraConfig: Record<string, unknown> = {},
  hubOptions: Omit<HubOptions, 'transportFactory'> = {},
): Promise<Kit> {
  const mcpServers = Object.fromEntries(servers.map((s) => [s.id, { command: 'never-spawned', ...s.entry }]));
  const config = parseConfig({ mcpServers, ...extraConfig }, { env: {} });
  const byId = new Map(servers.map((s) => [s.id, s]));
  const logger = Logger.create('test', { level: 'error', sinks: [] });
  const hub = new Hub(config, logger, {
    ...hubOptions,
    transportFactory: (entry) => {
      const [clientEnd, serverEnd] = memoryPair();
      const server = byId.get(entry.id)!;
      server.attach(new JsonRpcPeer(serverEnd));
      void serverEnd.start();
      return clientEnd;
    },
  });
  await hub.start();
  const clients: JsonRpcPeer[] = [];
  return {
    hub,
    servers: byId,
    async connect(scope = {}, capabilities = {}) {
      const [down, up] = memoryPair();
      const session = hub.connect(up, scope);
      await session.start();
      const peer = new JsonRpcPeer(down);
      clients.push(peer);
      const client = new FakeClient(peer);
      await peer.start();
      await client.init(capabilities);
      return client;
    },
    async close() {
      await hub.stop();
      for (const c of clients) await c.close().catch(() => undefined);
    },
  };
}

/**
 * Lets queued microtasks and one macrotask turn run (the hub coalesces per tick): before a
 * check that something did not arrive. In memory, what was sent is delivered within these
 * turns, so a slow machine cannot hide a wrong delivery.
 */
export function settle(): Promise<void> {
  return new Promise((r) => setTimeout(r, 5));
}

/** Polls `cond` (bounded at 10 s: in memory, but the machine may be loaded). */
export async function until(cond: () => boolean, what = 'condition'): Promise<void> {
  const end = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
