// What revision 2025-11-25 added, direct and through every path, with equal results: icons
// (implementation, tools, resources, prompts), `_meta` both ways with unknown keys intact,
// sampling with `tools`/`toolChoice`, JSON Schema 2020-12 untouched in tool schemas, enum
// and default elicitation schemas, resource_link content, structuredContent with an
// outputSchema, a deterministic merged tools/list order. Servers: our fixture
// (tests/fixtures/features2025Server.mjs, "f") and server-everything ("e") where it has the
// feature. Results are read raw (a loose result schema), so nothing an SDK would strip hides
// a difference. Aggregating paths use `toolNaming: "original"` so names compare as they are.
import { createServer } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ProgressNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { cleanupBridges, startBridge } from '../helpers/bridgeProcess.js';
import { startHttpServerScript } from '../helpers/httpScript.js';
import { scaled } from '../helpers/loadScale.js';
import { CLI, EVERYTHING_SERVER, FIXTURES } from '../helpers/paths.js';
import { waitNoProcess } from '../helpers/processGone.js';
import { ensureBuilt, waitFor } from '../helpers/proxyCli.js';

const F = join(FIXTURES, 'features2025Server.mjs');
const TOKEN = 'a-transparency-2025-token-long-enough';
const node = process.execPath;
// What the proxy declares upstream for `clientCapabilities {sampling, elicitation}`
// (config/clientCapabilities.ts), so that server-everything offers the same tools direct.
const caps = {
  sampling: { tools: {} },
  elicitation: { form: {}, url: {} },
  tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
};
const clientCapabilities = { sampling: true, elicitation: true };
const servers = { f: { command: node, args: [F] }, e: { command: node, args: [EVERYTHING_SERVER] } };
const Loose = z.looseObject({});
const META = { 'com.example.client/unknown': { deep: [1, { two: 2 }] }, 'x-trace': 'abc' };
type Id = 'f' | 'e';

/** One way to reach f and e: a client per server (the same one when the path aggregates). */
interface Conn {
  aggregate: boolean;
  client: (id: Id) => Client;
  close: () => Promise<void>;
}

const closers: (() => Promise<void>)[] = [];
async function connect(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Client> {
  const client = new Client({ name: 'transparency-2025', version: '1.0.0' }, { capabilities: caps });
  await client.connect(transport);
  closers.push(async () => {
    const pid = transport instanceof StdioClientTransport ? transport.pid : null;
    await client.close().catch(() => undefined);
    if (pid) await waitNoProcess(pid, 8000);
  });
  return client;
}
const stdio = (command: string, args: string[], env: Record<string, string> = {}) =>
  connect(
    new StdioClientTransport({
      command,
      args,
      stderr: 'ignore',
      env: { ...(process.env as Record<string, string>), ...env },
    }),
  );
const http = (url: string, headers: Record<string, string> = {}) =>
  connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
const pair = async (f: Promise<Client>, e: Promise<Client>): Promise<Conn> => {
  const [cf, ce] = await Promise.all([f, e]);
  return { aggregate: false, client: (id) => (id === 'f' ? cf : ce), close: async () => {} };
};
const one = async (c: Promise<Client>): Promise<Conn> => {
  const client = await c;
  return { aggregate: true, client: () => client, close: async () => {} };
};
const auth = { Authorization: `Bearer ${TOKEN}` };
const proxyArgs = (config: Record<string, unknown>) => [
  CLI,
  '--no-watchdog',
  '--config',
  JSON.stringify({ clientCapabilities, toolNaming: 'original', ...config }),
];

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** server-everything over streamable HTTP (it takes its port from $PORT and says so on stderr). */
async function everythingHttp(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(node, [EVERYTHING_SERVER, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const stop = async () => {
    child.kill('SIGKILL');
    await waitNoProcess(child.pid!, 8000);
  };
  // Stopped by the caller once it listens, here if it never does.
  await waitFor(() => err.includes('listening on port'), scaled(15_000), 'server-everything over HTTP').catch(
    async (e: unknown) => {
      await stop();
      throw e;
    },
  );
  return { url: `http://127.0.0.1:${port}/mcp`, stop };
}

const PATHS: [string, boolean, () => Promise<Conn>][] = [
  ['stdio aggregation', true, () => one(stdio(node, proxyArgs({ mcpServers: servers })))],
  [
    'bridge /mcp/<id>',
    false,
    async () => {
      const b = await startBridge({ config: { clientCapabilities, mcpServers: servers }, token: TOKEN });
      return pair(http(`${b.url}/mcp/f`, auth), http(`${b.url}/mcp/e`, auth));
    },
  ],
  [
    'bridge /mcp',
    true,
    async () => {
      const b = await startBridge({
        config: { clientCapabilities, toolNaming: 'original', mcpServers: servers },
        token: TOKEN,
      });
      return one(http(`${b.url}/mcp`, auth));
    },
  ],
  [
    'the ACP chain (stdio proxy -> bridge stream link)',
    true,
    async () => {
      const b = await startBridge({ config: { clientCapabilities, mcpServers: servers }, token: TOKEN });
      const entry = (id: Id) => ({
        type: 'bridge',
        url: `${b.url}/mcp/${id}`,
        headers: { Authorization: 'Bearer ${MCP_BRIDGE_TOKEN}' },
      });
      return one(stdio(node, proxyArgs({ mcpServers: { f: entry('f'), e: entry('e') } }), { MCP_BRIDGE_TOKEN: TOKEN }));
    },
  ],
  [
    'convert',
    false,
    async () => {
      // Each server's stop is kept as soon as it listens: one that fails must not leak the other.
      const started = await Promise.allSettled([
        startHttpServerScript(F, ['--transport', 'http', '--port', '0']),
        everythingHttp(),
      ]);
      for (const r of started) if (r.status === 'fulfilled') closers.push(r.value.stop);
      const failed = started.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      const [f, e] = started.map((r) => (r as PromiseFulfilledResult<{ url: string }>).value) as [
        { url: string },
        { url: string },
      ];
      return pair(
        stdio(node, [CLI, 'convert', f.url, '--no-watchdog']),
        stdio(node, [CLI, 'convert', e.url, '--no-watchdog']),
      );
    },
  ],
];

let direct: Conn;
beforeAll(async () => {
  ensureBuilt();
  direct = await pair(stdio(node, [F]), stdio(node, [EVERYTHING_SERVER]));
}, 60_000);
afterAll(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await cleanupBridges();
});

const raw = (c: Client, method: string, params: Record<string, unknown> = {}) =>
  c.request({ method, params } as never, Loose) as Promise<Record<string, unknown>>;
const item = async (c: Client, method: string, field: string, key: string, value: string) => {
  const list = (await raw(c, method))[field] as Record<string, unknown>[];
  return list.find((x) => x[key] === value);
};
const F_TOOLS = [
  'f_echo_meta',
  'f_schema_2020',
  'f_resource_link',
  'f_sampling_tools',
  'f_elicit_enums',
  'f_progress_meta',
];

/** What a server asked the client for while `run` ran (sampling and elicitation requests). */
async function asked<T>(c: Client, run: () => Promise<T>): Promise<{ result: T; requests: unknown[] }> {
  const requests: unknown[] = [];
  c.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    requests.push(req.params);
    return {
      role: 'assistant',
      model: 'm',
      stopReason: 'toolUse',
      content: [{ type: 'tool_use', id: 'call-1', name: 'lookup_weather', input: { city: 'Paris' } }],
    };
  });
  c.setRequestHandler(ElicitRequestSchema, async (req) => {
    requests.push(req.params);
    return {
      action: 'accept',
      content: { color: 'red', size: 's', tags: ['two'], count: 4, agree: true },
      _meta: META,
    };
  });
  return { result: await run(), requests };
}

describe.each(PATHS)('2025-11-25 transparency: %s', (_name, aggregate, open) => {
  let via: Conn;
  beforeAll(async () => {
    via = await open();
  }, 60_000);

  it('implementation: serverInfo with icons, title and websiteUrl, and instructions', async () => {
    const d = direct.client('f');
    const v = via.client('f');
    if (via.aggregate) {
      // Many servers answer as one: the serverInfo is the proxy's; f's instructions are merged in.
      expect(v.getInstructions() ?? '').toContain(`## f\n${d.getInstructions()}`);
    } else {
      expect(v.getServerVersion()).toEqual(d.getServerVersion());
      expect(v.getInstructions()).toEqual(d.getInstructions());
    }
  });

  it('tools/list: icons, title, annotations, _meta with unknown keys, 2020-12 inputSchema and outputSchema untouched', async () => {
    for (const name of F_TOOLS)
      expect(await item(via.client('f'), 'tools/list', 'tools', 'name', name)).toEqual(
        await item(direct.client('f'), 'tools/list', 'tools', 'name', name),
      );
    for (const name of ['get-structured-content', 'trigger-elicitation-request', 'get-resource-links'])
      expect(await item(via.client('e'), 'tools/list', 'tools', 'name', name)).toEqual(
        await item(direct.client('e'), 'tools/list', 'tools', 'name', name),
      );
  });

  it('tools/list result _meta: as direct on single-server paths; none on an aggregate (no one server to take it from)', async () => {
    const meta = (await raw(via.client('f'), 'tools/list'))._meta;
    if (aggregate) expect(meta).toBeUndefined();
    else expect(meta).toEqual((await raw(direct.client('f'), 'tools/list'))._meta);
  });

  it('resources/list and prompts/list: icons, annotations, title, _meta', async () => {
    expect(await item(via.client('f'), 'resources/list', 'resources', 'uri', 'features://doc/1')).toEqual(
      await item(direct.client('f'), 'resources/list', 'resources', 'uri', 'features://doc/1'),
    );
    expect(await item(via.client('f'), 'prompts/list', 'prompts', 'name', 'f_prompt')).toEqual(
      await item(direct.client('f'), 'prompts/list', 'prompts', 'name', 'f_prompt'),
    );
  });

  it('_meta both ways: a request _meta with unknown keys reaches the server, the result _meta comes back whole', async () => {
    const call = (c: Client) => raw(c, 'tools/call', { name: 'f_echo_meta', arguments: {}, _meta: META });
    const d = await call(direct.client('f'));
    expect(await call(via.client('f'))).toEqual(d);
    expect((d._meta as Record<string, unknown>).echoed).toEqual(META);
    const read = (c: Client) => raw(c, 'resources/read', { uri: 'features://doc/1', _meta: META });
    expect(await read(via.client('f'))).toEqual(await read(direct.client('f')));
    const prompt = (c: Client) => raw(c, 'prompts/get', { name: 'f_prompt', arguments: {}, _meta: META });
    expect(await prompt(via.client('f'))).toEqual(await prompt(direct.client('f')));
  });

  it('progress notifications keep their token, message and _meta', async () => {
    // Recorded by a notification handler of our own: the SDK's `onprogress` drops a progress
    // notification read in the same chunk as the answer (its handler is gone by then).
    const run = async (c: Client, token: string) => {
      const seen: unknown[] = [];
      c.setNotificationHandler(ProgressNotificationSchema, (n) => void seen.push(n.params));
      await raw(c, 'tools/call', { name: 'f_progress_meta', arguments: {}, _meta: { progressToken: token } });
      await waitFor(() => seen.length >= 2, 5000, 'two progress notifications');
      return seen;
    };
    const d = await run(direct.client('f'), `tok-${_name}`);
    expect(d[0]).toMatchObject({ message: 'step 1', _meta: { 'x-vendor-flag': true } });
    expect(await run(via.client('f'), `tok-${_name}`)).toEqual(d);
  });

  it('structuredContent with an outputSchema (validated by the SDK client) and resource_link content', async () => {
    const args = { ship: { city: 'Lyon' }, kind: 'b', lines: ['x', 2] };
    for (const [id, name, a] of [
      ['f', 'f_schema_2020', args],
      ['f', 'f_resource_link', {}],
      ['e', 'get-structured-content', { location: 'New York' }],
      ['e', 'get-resource-links', { count: 3 }],
    ] as [Id, string, Record<string, unknown>][]) {
      await via.client(id).listTools();
      await direct.client(id).listTools();
      expect(await via.client(id).callTool({ name, arguments: a }), name).toEqual(
        await direct.client(id).callTool({ name, arguments: a }),
      );
    }
  });

  it('sampling with tools and toolChoice: the same request reaches the client, its tool_use answer (with _meta) the server', async () => {
    const run = (c: Client) => asked(c, () => raw(c, 'tools/call', { name: 'f_sampling_tools', arguments: {} }));
    const d = await run(direct.client('f'));
    expect(JSON.stringify(d.result)).toContain('tool_use');
    expect(await run(via.client('f'))).toEqual(d);
  });

  it('elicitation with enum and default schemas: the requested schema arrives untouched, the answer (with _meta) comes back', async () => {
    const run = (c: Client, name: string) => asked(c, () => raw(c, 'tools/call', { name, arguments: {} }));
    const d = await run(direct.client('f'), 'f_elicit_enums');
    expect(d.requests).toHaveLength(1);
    expect(await run(via.client('f'), 'f_elicit_enums')).toEqual(d);
    expect(await run(via.client('e'), 'trigger-elicitation-request')).toEqual(
      await run(direct.client('e'), 'trigger-elicitation-request'),
    );
  });

  it('tools/list order: each server in its own order; merged in config order (f, then e), the same on every listing', async () => {
    const names = async (c: Client) => ((await raw(c, 'tools/list')).tools as { name: string }[]).map((t) => t.name);
    const [df, de] = [await names(direct.client('f')), await names(direct.client('e'))];
    if (via.aggregate) {
      const first = await names(via.client('f'));
      expect(first).toEqual([...df, ...de]);
      expect(await names(via.client('f'))).toEqual(first);
    } else {
      expect(await names(via.client('f'))).toEqual(df);
      expect(await names(via.client('e'))).toEqual(de);
    }
  });
});
