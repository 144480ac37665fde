// The ways a client can reach the benchmarks' echo server, each started the same way and
// returned as an SDK Client plus the pids of the proxy processes in between:
//   sdk-stdio (baseline), sdk-http, sdk2-stdio, ours-stdio-2026, ours-bridge-2026, raw-relay, parse-relay, raw-relay-2, raw-http-hop, raw-http-chain, ours-stdio, ours-bridge-id, ours-bridge-all, ours-acp-chain,
//   ours-convert, supergateway-http, supergateway-sse, mcp-proxy, mcp-hub; with
//   QIMING_PROXY_CLI_BEFORE set, before-stdio, before-bridge-all, before-acp-chain and before-stdio-2026: ours-stdio,
//   ours-bridge-all, ours-acp-chain and ours-stdio-2026 run by that build, side by side with this one.
// Every process is registered with the benchmark's Processes (ended by pid at the end).
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';
/** @typedef {import('./common.mjs').Processes} Processes */
import {
  CLI,
  CLI_BEFORE,
  ECHO_SERVER,
  GUARD,
  descendants,
  PARSE_RELAY,
  PEERS,
  RAW_HTTP_HOP,
  RAW_RELAY,
  firstJsonLine,
  freePort,
  sleep,
  tail,
  waitPort,
  within,
} from './common.mjs';

const START_TIMEOUT_MS = 30_000;
/** The SDK stdio client's read buffer: its 10 MiB default refuses a 10 MiB result with its envelope. */
const STDIO_CLIENT_BUFFER_BYTES = 64 * 1024 * 1024;
const node = process.execPath;

/**
 * With BENCH_CPU_PROF_DIR set, our proxy processes run under `node --cpu-prof` and write
 * <dir>/<label>/CPU.*.cpuprofile when they exit (summarise with bench/profileSummary.mjs).
 */
/**
 * @param {string} label
 * @param {string[]} args
 * @param {string} [cli] the CLI file (default: the one under test)
 */
export function cliArgs(label, args, cli = CLI) {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, label)}`, cli, ...args] : [cli, ...args];
}

/** All paths, in report order. `proxy` names the processes whose RSS is the path's cost. */
export const PATHS = [
  { id: 'sdk-stdio', label: 'direct SDK stdio (baseline)', group: 'reference' },
  { id: 'sdk-http', label: 'direct SDK streamable HTTP', group: 'reference' },
  { id: 'raw-relay', label: 'byte relay process, no parsing (floor of a stdio hop)', group: 'reference' },
  {
    id: 'parse-relay',
    label: 'relay process that parses, re-ids and re-serialises each message (floor of a proxy that reads messages)',
    group: 'reference',
  },
  {
    id: 'raw-relay-2',
    label: 'two byte relay processes in a row (floor of the ACP chain over the stream link)',
    group: 'reference',
  },
  {
    id: 'raw-http-hop',
    label: 'minimal HTTP server -> stdio, JSON replies (floor of bridge /mcp/<id>)',
    group: 'reference',
  },
  { id: 'raw-http-chain', label: 'minimal stdio -> HTTP -> stdio relays (floor of the ACP chain)', group: 'reference' },
  { id: 'ours-stdio', label: 'ours: stdio aggregation', group: 'ours' },
  { id: 'ours-bridge-id', label: 'ours: bridge /mcp/<id>', group: 'ours' },
  { id: 'ours-bridge-all', label: 'ours: bridge /mcp', group: 'ours' },
  { id: 'ours-acp-chain', label: 'ours: ACP chain (stdio proxy -> bridge)', group: 'ours' },
  { id: 'ours-convert', label: 'ours: convert (stdio -> SDK HTTP server)', group: 'ours' },
  {
    id: 'sdk2-stdio',
    label: 'direct SDK v2 client stdio (2025-11-25, the baseline of the 2026 rows)',
    group: 'reference',
  },
  {
    id: 'ours-stdio-2026',
    label: 'ours: stdio aggregation, SDK v2 client at 2026-07-28 (a held call)',
    group: 'ours',
  },
  { id: 'ours-bridge-2026', label: 'ours: bridge /mcp/<id>, SDK v2 client at 2026-07-28 (a held call)', group: 'ours' },
  { id: 'supergateway-http', label: 'supergateway 4.0.0 stdio->streamableHttp --stateful', group: 'peer' },
  { id: 'supergateway-sse', label: 'supergateway 4.0.0 stdio->sse', group: 'peer' },
  { id: 'mcp-proxy', label: 'mcp-proxy 6.7.19 (streamable HTTP)', group: 'peer' },
  { id: 'mcp-hub', label: 'mcp-hub 4.2.1 (SSE /mcp)', group: 'peer' },
  ...(CLI_BEFORE
    ? [
        { id: 'before-stdio', label: 'QIMING_PROXY_CLI_BEFORE: stdio aggregation', group: 'before' },
        { id: 'before-bridge-all', label: 'QIMING_PROXY_CLI_BEFORE: bridge /mcp', group: 'before' },
        { id: 'before-acp-chain', label: 'QIMING_PROXY_CLI_BEFORE: ACP chain', group: 'before' },
        {
          id: 'before-stdio-2026',
          label: 'QIMING_PROXY_CLI_BEFORE: stdio aggregation, 2026-07-28 client',
          group: 'before',
        },
      ]
    : []),
];

/** @param {unknown} only the `--only` option: ids separated by commas (all paths when absent) */
export function selectPaths(only) {
  if (!only || only === true) return PATHS;
  const want = String(only).split(',');
  return PATHS.filter((p) => want.includes(p.id));
}

/**
 * Environment of the peers: the loopback guard preloaded, its log file set.
 * @param {Shared} shared
 * @param {Record<string, string>} [extra]
 * @returns {Record<string, string | undefined>}
 */
function peerEnv(shared, extra = {}) {
  return { ...process.env, NODE_OPTIONS: `--require ${GUARD}`, BENCH_GUARD_LOG: shared.guardLog, ...extra };
}

/**
 * @param {import('@modelcontextprotocol/sdk/shared/transport.js').Transport} transport
 * @param {string} what
 */
async function connect(transport, what) {
  const client = new Client({ name: 'qiming-bench', version: '1.0.0' });
  client.onerror = () => {};
  await within(START_TIMEOUT_MS, `${what}: connect`, () => client.connect(transport));
  return client;
}

/**
 * Finds the echo and blob tools whatever the path's naming (`echo`, `echo__echo`, ...).
 * @param {Client} client
 * @param {string} what
 */
async function toolNames(client, what) {
  const { tools } = await within(START_TIMEOUT_MS, `${what}: tools/list`, () => client.listTools());
  /** @param {string} base */
  const find = (base) =>
    tools.find((t) => t.name === base)?.name ?? tools.find((t) => new RegExp(`(^|[^a-z])${base}$`).test(t.name))?.name;
  const echo = find('echo');
  const blob = find('blob');
  if (!echo || !blob) throw new Error(`${what}: echo/blob tools not found in ${tools.map((t) => t.name).join(', ')}`);
  return { echo, blob };
}

/**
 * A client on `command args` over stdio: the SDK v1 Client, or with `v2` an SDK v2 client at
 * that version (`auto`: it negotiates) behind the v1 methods (`asV1`).
 * @param {Processes} procs
 * @param {string} what
 * @param {string} command
 * @param {string[]} args
 * @param {Record<string, string | undefined>} [env]
 * @param {string} [v2]
 */
async function stdioClient(procs, what, command, args, env = process.env, v2 = undefined) {
  const params = {
    command,
    args,
    env: /** @type {Record<string, string>} */ (env),
    stderr: /** @type {const} */ ('pipe'),
    maxBufferSize: STDIO_CLIENT_BUFFER_BYTES,
  };
  const transport = v2 ? new StdioTransportV2(params) : new StdioClientTransport(params);
  const errors = tail(/** @type {import('node:stream').Readable | null} */ (transport.stderr));
  let client;
  try {
    client =
      transport instanceof StdioTransportV2
        ? asV1(await connectV2(transport, /** @type {string} */ (v2), what))
        : await connect(transport, what);
  } catch (err) {
    if (transport.pid) procs.add(transport.pid, what);
    throw new Error(`${/** @type {Error} */ (err).message}\n${errors.text()}`);
  }
  // Connected, so the child is running and has a pid.
  const pid = /** @type {number} */ (transport.pid);
  procs.add(pid, what);
  return { client, pid, errors };
}

/**
 * An SDK v2 client behind the v1 Client methods the benchmarks call (`callTool(params,
 * schema, options)`, `readResource`, `listTools`, `close`), so every bench drives it alike.
 * @param {ClientV2} c
 * @returns {Client}
 */
function asV1(c) {
  const adapter = {
    /** @param {any} params @param {unknown} _schema @param {any} options */
    callTool: (params, _schema, options) => c.callTool(params, options),
    /** @param {any} params @param {any} options */
    readResource: (params, options) => c.readResource(params, options),
    listTools: () => c.listTools(),
    close: () => c.close(),
  };
  return /** @type {Client} */ (/** @type {unknown} */ (adapter));
}

/**
 * An SDK v2 client at `version` (`auto`: it negotiates) on `transport`.
 * @param {import('@modelcontextprotocol/client').Transport} transport
 * @param {string} version
 * @param {string} what
 */
async function connectV2(transport, version, what) {
  const mode = version === 'auto' ? 'auto' : { pin: version };
  const client = new ClientV2({ name: 'qiming-bench', version: '1.0.0' }, { versionNegotiation: { mode } });
  client.onerror = () => {};
  await within(START_TIMEOUT_MS, `${what}: connect`, () => client.connect(transport));
  const era = client.getProtocolEra();
  if (version !== 'auto' && era !== 'modern') throw new Error(`${what}: the client speaks the ${era} era`);
  return client;
}

/**
 * @param {string} url
 * @param {Record<string, string>} headers
 * @param {string} what
 */
function httpClient(url, headers, what) {
  return connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }), what);
}

/**
 * @param {string} url
 * @param {Record<string, string>} headers
 * @param {string} what
 */
function sseClient(url, headers, what) {
  // The SSE GET carries the headers through eventSourceInit's fetch, the POSTs through requestInit.
  const transport = new SSEClientTransport(new URL(url), {
    requestInit: { headers },
    eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers ?? {}), ...headers } }) },
  });
  return connect(transport, what);
}

/**
 * Config options beside `mcpServers` from the JSON in env `name` (e.g. `{"activity":"off"}`), or none.
 * @param {string} name
 * @returns {Record<string, unknown>}
 */
function envTopLevel(name) {
  const text = process.env[name];
  if (!text) return {};
  const v = JSON.parse(text);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${name} must be a JSON object`);
  return v;
}

/** Shared resources (the SDK HTTP echo server, the bridge), started on first use. */
/**
 * Gives this process, and so every process it starts (ours, the peers, the servers), a HOME and
 * XDG folders under `home`: a run never reads or writes the user's pins, activity or secrets.
 * @param {string} home
 */
function isolateHome(home) {
  const dirs = { HOME: '', XDG_CONFIG_HOME: '.config', XDG_DATA_HOME: '.local/share', XDG_STATE_HOME: '.local/state' };
  for (const [name, sub] of Object.entries(dirs)) {
    process.env[name] = join(home, sub);
    mkdirSync(process.env[name], { recursive: true });
  }
}

export class Shared {
  /** @type {Promise<{ pid: number | undefined; url: string }> | undefined} */
  echoHttpP;
  /** @type {Promise<{ pid: number | undefined; url: string }> | undefined} */
  rawHttpP;
  /** @type {ReturnType<typeof startBridge> | undefined} */
  bridgeP;
  /** @type {ReturnType<typeof startBridge> | undefined} */
  bridgeBeforeP;

  /**
   * @param {Processes} procs
   * @param {{ topLevel?: Record<string, unknown> }} [opts] `topLevel`: options of our proxies' configs
   *   beside `mcpServers` (e.g. `{maxResultBytes: "off"}`)
   */
  constructor(procs, opts = {}) {
    this.procs = procs;
    this.topLevel = { ...envTopLevel('QIMING_BENCH_TOP_LEVEL'), ...opts.topLevel };
    // The before-* twins' options: the same, unless QIMING_BENCH_TOP_LEVEL_BEFORE says otherwise (one build, two settings).
    this.topLevelBefore = { ...this.topLevel, ...envTopLevel('QIMING_BENCH_TOP_LEVEL_BEFORE') };
    this.dir = mkdtempSync(join(tmpdir(), 'qiming-bench-'));
    isolateHome(join(this.dir, 'home'));
    this.guardLog = join(this.dir, 'guard.log');
    writeFileSync(this.guardLog, '');
  }

  /** Outgoing connections the loopback guard refused (must be none). */
  guardBlocks() {
    return readFileSync(this.guardLog, 'utf8').split('\n').filter(Boolean);
  }

  async echoHttp() {
    this.echoHttpP ??= (async () => {
      const child = this.procs.spawn(node, [ECHO_SERVER, '--http'], {}, 'echo server (HTTP)');
      const errors = tail(child.stderr);
      const line = await firstJsonLine(child.stdout, START_TIMEOUT_MS, 'SDK HTTP echo server').catch((e) => {
        throw new Error(`${e.message}\n${errors.text()}`);
      });
      return { pid: child.pid, url: `http://127.0.0.1:${line.port}/mcp` };
    })();
    return this.echoHttpP;
  }

  /** The minimal HTTP hop in front of a stdio echo server (bench/fixtures/rawHttpHop.mjs). */
  async rawHttp() {
    this.rawHttpP ??= (async () => {
      const child = this.procs.spawn(node, [RAW_HTTP_HOP, 'server', node, ECHO_SERVER], {}, 'raw HTTP hop');
      const errors = tail(child.stderr);
      const line = await firstJsonLine(child.stdout, START_TIMEOUT_MS, 'raw HTTP hop').catch((e) => {
        throw new Error(`${e.message}\n${errors.text()}`);
      });
      return { pid: child.pid, url: `http://127.0.0.1:${line.port}/mcp` };
    })();
    return this.rawHttpP;
  }

  /** Our bridge with one echo server (`echo`), shared by the bridge and ACP-chain paths. */
  async bridge() {
    this.bridgeP ??= startBridge(
      this.procs,
      { echo: { command: node, args: [ECHO_SERVER] } },
      'bridge',
      [],
      this.topLevel,
    );
    return this.bridgeP;
  }

  /** The same bridge run by QIMING_PROXY_CLI_BEFORE. */
  async bridgeBefore() {
    this.bridgeBeforeP ??= startBridge(
      this.procs,
      { echo: { command: node, args: [ECHO_SERVER] } },
      'bridge-before',
      [],
      this.topLevelBefore,
      CLI_BEFORE,
    );
    return this.bridgeBeforeP;
  }

  cleanup() {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Spawns `proxy --port 0` and resolves with its ready line (plus the child and a token).
 * @param {Processes} procs
 * @param {Record<string, unknown>} mcpServers
 * @param {string[]} [extraArgs]
 * @param {Record<string, unknown>} [topLevel] config options beside `mcpServers`
 * @param {string} [cli] the CLI file (default: the one under test)
 */
export async function startBridge(procs, mcpServers, what = 'bridge', extraArgs = [], topLevel = {}, cli = CLI) {
  const token = randomBytes(24).toString('hex');
  const child = procs.spawn(
    node,
    cliArgs(what, ['proxy', '--port', '0', '--config', JSON.stringify({ ...topLevel, mcpServers }), ...extraArgs], cli),
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, MCP_BRIDGE_TOKEN: token },
    },
    what,
  );
  const errors = tail(child.stderr);
  /** @type {import('../../src/main/runtime/bridgeProcess.js').BridgeReadyMessage} */
  const ready = await firstJsonLine(child.stdout, 60_000, `${what} ready line`, (v) => v.event === 'ready').catch(
    (e) => {
      throw new Error(`${e.message}\n${errors.text()}`);
    },
  );
  // It wrote its ready line, so it runs and has a pid.
  return {
    child,
    pid: /** @type {number} */ (child.pid),
    port: ready.port,
    url: `http://127.0.0.1:${ready.port}`,
    token,
    ready,
    errors,
  };
}

/**
 * Starts one path. Returns `{client, tools: {echo, blob}, proxyPids, close()}`; `close`
 * closes the client and ends the path's own processes by pid (shared ones end with the run).
 * @typedef {Awaited<ReturnType<typeof startPath>>} BenchPath
 * @typedef {{ isError?: boolean; content?: { text?: string }[] }} ToolResult what the benchmarks read of a tools/call result
 * @param {string} id
 * @param {Shared} shared
 */
export async function startPath(id, shared) {
  const { procs } = shared;
  /** @type {(number | undefined)[]} */
  const own = [];
  /** @type {Client} */
  let client;
  /** @type {(number | undefined)[]} */
  let proxyPids = [];
  switch (id) {
    case 'sdk-stdio': {
      const c = await stdioClient(procs, id, node, [ECHO_SERVER]);
      client = c.client;
      own.push(c.pid);
      break;
    }
    case 'raw-relay': {
      const c = await stdioClient(procs, id, node, [RAW_RELAY, node, ECHO_SERVER]);
      client = c.client;
      own.push(c.pid);
      proxyPids = [c.pid];
      break;
    }
    case 'parse-relay': {
      const c = await stdioClient(procs, id, node, [PARSE_RELAY, node, ECHO_SERVER]);
      client = c.client;
      own.push(c.pid);
      proxyPids = [c.pid];
      break;
    }
    case 'raw-relay-2': {
      const c = await stdioClient(procs, id, node, [RAW_RELAY, node, RAW_RELAY, node, ECHO_SERVER]);
      client = c.client;
      own.push(c.pid);
      // Both relays (the second is the first's child; the server is the second's).
      proxyPids = [c.pid, descendants(c.pid)[0]].filter(Boolean);
      break;
    }
    case 'raw-http-hop': {
      const s = await shared.rawHttp();
      client = await httpClient(s.url, {}, id);
      proxyPids = [s.pid];
      break;
    }
    case 'raw-http-chain': {
      const s = await shared.rawHttp();
      const c = await stdioClient(procs, id, node, [RAW_HTTP_HOP, 'client', s.url]);
      client = c.client;
      own.push(c.pid);
      proxyPids = [c.pid, s.pid];
      break;
    }
    case 'sdk-http': {
      const s = await shared.echoHttp();
      client = await httpClient(s.url, {}, id);
      break;
    }
    case 'ours-stdio':
    case 'before-stdio': {
      const top = id === 'before-stdio' ? shared.topLevelBefore : shared.topLevel;
      const config = { ...top, mcpServers: { echo: { command: node, args: [ECHO_SERVER] } } };
      const cli = id === 'before-stdio' ? CLI_BEFORE : CLI;
      const c = await stdioClient(procs, id, node, cliArgs(id, ['--config', JSON.stringify(config)], cli));
      client = c.client;
      own.push(c.pid);
      proxyPids = [c.pid];
      break;
    }
    case 'ours-bridge-id':
    case 'ours-bridge-all': {
      const b = await shared.bridge();
      const url = id === 'ours-bridge-id' ? `${b.url}/mcp/echo` : `${b.url}/mcp`;
      client = await httpClient(url, { Authorization: `Bearer ${b.token}` }, id);
      proxyPids = [b.pid];
      break;
    }
    case 'before-bridge-all': {
      const b = await shared.bridgeBefore();
      client = await httpClient(`${b.url}/mcp`, { Authorization: `Bearer ${b.token}` }, id);
      proxyPids = [b.pid];
      break;
    }
    case 'ours-acp-chain':
    case 'before-acp-chain': {
      const before = id === 'before-acp-chain';
      const b = await (before ? shared.bridgeBefore() : shared.bridge());
      // As src/main/acp/acp.ts builds it: a `bridge` upstream per server, the token from the env.
      const config = {
        ...(before ? shared.topLevelBefore : shared.topLevel),
        mcpServers: {
          echo: { type: 'bridge', url: `${b.url}/mcp/echo`, headers: { Authorization: 'Bearer ${MCP_BRIDGE_TOKEN}' } },
        },
      };
      const args = cliArgs(id, ['--config', JSON.stringify(config)], before ? CLI_BEFORE : CLI);
      const c = await stdioClient(procs, id, node, args, {
        ...process.env,
        MCP_BRIDGE_TOKEN: b.token,
      });
      client = c.client;
      own.push(c.pid);
      proxyPids = [c.pid, b.pid];
      break;
    }
    case 'sdk2-stdio': {
      const c = await stdioClient(procs, id, node, [ECHO_SERVER], process.env, 'auto');
      client = c.client;
      own.push(c.pid);
      break;
    }
    case 'ours-stdio-2026':
    case 'before-stdio-2026': {
      const before = id === 'before-stdio-2026';
      const top = before ? shared.topLevelBefore : shared.topLevel;
      const config = { ...top, mcpServers: { echo: { command: node, args: [ECHO_SERVER] } } };
      const args = cliArgs(id, ['--config', JSON.stringify(config)], before ? CLI_BEFORE : CLI);
      const c = await stdioClient(procs, id, node, args, process.env, '2026-07-28');
      client = c.client;
      own.push(c.pid);
      proxyPids = [c.pid];
      break;
    }
    case 'ours-bridge-2026': {
      const b = await shared.bridge();
      const transport = new HttpTransportV2(new URL(`${b.url}/mcp/echo`), {
        requestInit: { headers: { Authorization: `Bearer ${b.token}` } },
      });
      client = asV1(await connectV2(transport, '2026-07-28', id));
      proxyPids = [b.pid];
      break;
    }
    case 'ours-convert': {
      const s = await shared.echoHttp();
      const c = await stdioClient(procs, id, node, cliArgs(id, ['convert', s.url]));
      client = c.client;
      own.push(c.pid);
      proxyPids = [c.pid];
      break;
    }
    case 'supergateway-http':
    case 'supergateway-sse': {
      const port = await freePort();
      const http = id === 'supergateway-http';
      const args = [
        PEERS.supergateway,
        '--stdio',
        `"${node}" "${ECHO_SERVER}"`,
        '--port',
        String(port),
        '--logLevel',
        'none',
      ];
      if (http) args.push('--outputTransport', 'streamableHttp', '--stateful');
      const child = procs.spawn(node, args, { env: peerEnv(shared) }, id);
      const errors = tail(child.stderr);
      tail(child.stdout);
      await waitPort(port, START_TIMEOUT_MS, () => child.exitInfo !== undefined).catch((e) => {
        throw new Error(`${e.message}\n${errors.text()}`);
      });
      client = http
        ? await httpClient(`http://127.0.0.1:${port}/mcp`, {}, id)
        : await sseClient(`http://127.0.0.1:${port}/sse`, {}, id);
      own.push(child.pid);
      proxyPids = [child.pid];
      break;
    }
    case 'mcp-proxy': {
      const port = await freePort();
      const child = procs.spawn(
        node,
        [PEERS.mcpProxy, '--port', String(port), '--host', '127.0.0.1', '--', node, ECHO_SERVER],
        { env: peerEnv(shared) },
        id,
      );
      const errors = tail(child.stderr);
      tail(child.stdout);
      await waitPort(port, START_TIMEOUT_MS, () => child.exitInfo !== undefined).catch((e) => {
        throw new Error(`${e.message}\n${errors.text()}`);
      });
      client = await httpClient(`http://127.0.0.1:${port}/mcp`, {}, id);
      own.push(child.pid);
      proxyPids = [child.pid];
      break;
    }
    case 'mcp-hub': {
      const hub = await startMcpHub(shared, { echo: { command: 'node', args: [ECHO_SERVER] } }, id);
      client = await sseClient(`http://127.0.0.1:${hub.port}/mcp`, {}, id);
      own.push(hub.pid);
      proxyPids = [hub.pid];
      break;
    }
    default:
      throw new Error(`unknown path ${id}`);
  }
  const tools = await toolNames(client, id);
  procs.snapshot();
  return {
    id,
    client,
    tools,
    proxyPids,
    async close() {
      await within(5000, `${id}: close`, () => client.close()).catch(() => undefined);
      for (const pid of own) if (pid !== undefined) await procs.end(pid);
    },
  };
}

/**
 * mcp-hub with an isolated HOME: its marketplace cache (~/.mcp-hub/cache/registry.json,
 * the path its source resolves when that folder exists) is pre-filled and fresh, so it never
 * fetches the catalogue; PATH holds only `node`, so its curl fallback cannot run either.
 * @param {Shared} shared
 * @param {Record<string, unknown>} mcpServers
 */
export async function startMcpHub(shared, mcpServers, what = 'mcp-hub') {
  const home = join(shared.dir, `hub-home-${Math.random().toString(36).slice(2)}`);
  const cache = join(home, '.mcp-hub', 'cache');
  mkdirSync(cache, { recursive: true });
  const registry = {
    version: 'bench',
    generatedAt: Date.now(),
    totalServers: 1,
    servers: [
      {
        id: 'bench-placeholder',
        name: 'bench placeholder',
        description: 'offline benchmark',
        url: 'http://127.0.0.1/',
        category: 'other',
        tags: [],
      },
    ],
  };
  writeFileSync(
    join(cache, 'registry.json'),
    JSON.stringify({ registry, lastFetchedAt: Date.now(), serverDocumentation: {} }),
  );
  const bin = join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  if (!existsSync(join(bin, 'node'))) symlinkSync(node, join(bin, 'node'));
  const configFile = join(home, 'mcp-hub.json');
  writeFileSync(configFile, JSON.stringify({ mcpServers }));
  const port = await freePort();
  const env = peerEnv(shared, { HOME: home, PATH: bin, XDG_DATA_HOME: '', XDG_STATE_HOME: '', XDG_CONFIG_HOME: '' });
  for (const k of ['XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME']) delete env[k];
  const child = shared.procs.spawn(
    node,
    [PEERS.mcpHub, '--port', String(port), '--config', configFile],
    { env, cwd: home },
    what,
  );
  const errors = tail(child.stderr);
  const out = tail(child.stdout);
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const health = await fetch(`http://127.0.0.1:${port}/api/health`)
      .then((r) => r.json())
      .catch(() => undefined);
    if (
      health?.state === 'ready' &&
      (health.servers ?? []).every((/** @type {{ status?: string }} */ s) => s.status === 'connected')
    )
      break;
    if (child.exitInfo)
      throw new Error(`${what} exited: ${JSON.stringify(child.exitInfo)}\n${errors.text()}\n${out.text()}`);
    if (Date.now() > deadline)
      throw new Error(`${what} not ready after ${START_TIMEOUT_MS} ms: ${JSON.stringify(health)}\n${out.text()}`);
    await sleep(25);
  }
  return { child, pid: child.pid, port };
}
