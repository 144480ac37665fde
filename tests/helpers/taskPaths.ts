// One MCP 2025-11-25 client (SDK v1 1.32, declaring elicitation {form, url}, sampling,
// roots and tasks, with its own task store for task-augmented sampling and elicitation),
// connected to a server directly or through each of the proxy's paths: stdio aggregation,
// bridge /mcp/<id>, bridge /mcp, the app's ACP chain (stdio proxy -> bridge stream link)
// and convert (a remote server over stdio). What the client saw is recorded for comparison.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import {
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { cleanupBridges, startBridge } from './bridgeProcess.js';
import { CLI, EVERYTHING_SERVER, FIXTURES } from './paths.js';
import { waitNoProcess } from './processGone.js';
import { join } from 'node:path';

export const TASK_SERVER = join(FIXTURES, 'taskServer.mjs');

/** What a 2025-11-25 client that can do everything declares. */
export const FULL_CAPABILITIES = {
  elicitation: { form: {}, url: {} },
  sampling: {},
  roots: { listChanged: true },
  tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
};
/** The proxy's config flags for it. */
export const FULL_FLAGS = { sampling: true, elicitation: true, roots: true };

export interface Seen {
  statuses: { taskId: string; status: string }[];
  completions: string[];
  elicitations: Record<string, unknown>[];
  samplings: Record<string, unknown>[];
}

export interface Endpoint {
  client: Client;
  /** What names carry on this path (`<id>__` in aggregate scope). */
  prefix: string;
  seen: Seen;
  close(): Promise<void>;
}

/** A client whose handlers answer like a user would, running task-augmented requests as tasks. */
export function fullClient(capabilities: Record<string, unknown> = FULL_CAPABILITIES): { client: Client; seen: Seen } {
  const seen: Seen = { statuses: [], completions: [], elicitations: [], samplings: [] };
  const client = new Client(
    { name: 'tasks-test', version: '1.0.0' },
    { capabilities, taskStore: new InMemoryTaskStore() },
  );
  const asTask = async <R extends Record<string, unknown>>(
    params: { task?: { ttl?: number } },
    extra: { taskStore?: unknown },
    result: R,
  ) => {
    if (!params.task) return result;
    const store = extra.taskStore as {
      createTask(p: { ttl?: number; pollInterval?: number }): Promise<{ taskId: string }>;
      storeTaskResult(id: string, s: string, r: unknown): Promise<void>;
    };
    const task = await store.createTask({ ttl: params.task.ttl ?? 60_000, pollInterval: 100 });
    setTimeout(() => void store.storeTaskResult(task.taskId, 'completed', result).catch(() => undefined), 50);
    return { task } as unknown as R;
  };
  // The SDK refuses a handler for a capability not declared.
  if (capabilities.elicitation)
    client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
      seen.elicitations.push(req.params as Record<string, unknown>);
      const result =
        req.params.mode === 'url'
          ? { action: 'accept' as const }
          : { action: 'accept' as const, content: acceptAll(req.params.requestedSchema) };
      return asTask(req.params as { task?: { ttl?: number } }, extra, result);
    });
  if (capabilities.sampling)
    client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
      seen.samplings.push(req.params as Record<string, unknown>);
      const result = {
        role: 'assistant' as const,
        model: 'test-model',
        content: { type: 'text' as const, text: 'sampled by the test' },
      };
      return asTask(req.params as { task?: { ttl?: number } }, extra, result);
    });
  if (capabilities.roots)
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///tmp', name: 'tmp' }] }));
  client.setNotificationHandler(
    TaskStatusNotificationSchema,
    (n) => void seen.statuses.push({ taskId: n.params.taskId, status: n.params.status }),
  );
  client.setNotificationHandler(
    ElicitationCompleteNotificationSchema,
    (n) => void seen.completions.push(n.params.elicitationId),
  );
  return { client, seen };
}

/** Content accepting a form elicitation's schema: each property's first choice, or a string. */
function acceptAll(schema: unknown): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  const props = (schema as { properties?: Record<string, Record<string, unknown>> } | undefined)?.properties ?? {};
  for (const [k, p] of Object.entries(props)) {
    const choices =
      (p.oneOf as { const: string }[] | undefined)?.map((c) => c.const) ?? (p.enum as string[] | undefined);
    if (p.type === 'boolean') out[k] = true;
    else if (p.type === 'number' || p.type === 'integer') out[k] = 1;
    else out[k] = choices?.[0] ?? (k === 'name' ? 'Ada' : `${k}-value`);
  }
  return out;
}

async function overStdio(
  command: string,
  args: string[],
  prefix: string,
  env: Record<string, string> = {},
): Promise<Endpoint> {
  const transport = new StdioClientTransport({
    command,
    args,
    stderr: 'ignore',
    env: { ...(process.env as Record<string, string>), ...env },
  });
  const { client, seen } = fullClient();
  await client.connect(transport);
  const pid = transport.pid;
  return {
    client,
    prefix,
    seen,
    close: async () => {
      await client.close().catch(() => undefined);
      if (pid && !(await waitNoProcess(pid, 8000))) throw new Error(`process ${pid} outlived its client`);
    },
  };
}

async function overHttp(url: string, headers: Record<string, string>, prefix: string): Promise<Endpoint> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
    },
  });
  const { client, seen } = fullClient();
  await client.connect(transport);
  return { client, prefix, seen, close: () => client.close().catch(() => undefined) };
}

/** A server under test: how to run it over stdio and over streamable HTTP. */
export interface ServerSpec {
  id: string;
  stdio: { command: string; args: string[] };
  /** Starts it over streamable HTTP; resolves with its URL. */
  http(): Promise<{ url: string; child: ChildProcess }>;
}

export const taskServer: ServerSpec = {
  id: 't',
  stdio: { command: process.execPath, args: [TASK_SERVER] },
  http: () =>
    spawnHttp(process.execPath, [TASK_SERVER, '--http'], {}, (out) => /listening (\d+)/.exec(out)?.[1], '/mcp'),
};

export const everythingServer: ServerSpec = {
  id: 'e',
  stdio: { command: process.execPath, args: [EVERYTHING_SERVER] },
  http: async () => {
    const port = await freePort();
    return spawnHttp(
      process.execPath,
      [EVERYTHING_SERVER, 'streamableHttp'],
      { PORT: String(port) },
      (_o, err) => (/listening on port/.test(err) ? String(port) : undefined),
      '/mcp',
    );
  },
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

const httpChildren: ChildProcess[] = [];

function spawnHttp(
  command: string,
  args: string[],
  env: Record<string, string>,
  portOf: (stdout: string, stderr: string) => string | undefined,
  path: string,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  httpChildren.push(child);
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const check = () => {
      const port = portOf(out, err);
      if (port) resolve({ url: `http://127.0.0.1:${port}${path}`, child });
    };
    child.stdout!.on('data', (d: Buffer) => ((out += d.toString()), check()));
    child.stderr!.on('data', (d: Buffer) => ((err += d.toString()), check()));
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${err}`)));
  });
}

const TOKEN = 'a-tasks-test-token-that-is-long-enough';

/** Each way to reach `spec`, direct first; every name and id on a path carries its prefix. */
export function paths(spec: ServerSpec): [string, () => Promise<Endpoint>][] {
  const entry = { ...spec.stdio, clientCapabilities: FULL_FLAGS };
  // maxResultBytes off: an aggregate then declares exactly its servers' capabilities (with a cap
  // on it adds `resources`, to read cut results back: hub/economy/resultCap.ts).
  const config = { maxResultBytes: 'off', mcpServers: { [spec.id]: entry } };
  const proxyArgs = (cfg: unknown, ...rest: string[]) => [
    CLI,
    ...rest,
    '--config',
    JSON.stringify(cfg),
    '--no-watchdog',
  ];
  return [
    ['direct', () => overStdio(spec.stdio.command, spec.stdio.args, '')],
    ['stdio aggregation', () => overStdio(process.execPath, proxyArgs(config), `${spec.id}__`)],
    [
      'bridge /mcp/<id>',
      async () => {
        const b = await startBridge({ config, token: TOKEN });
        return overHttp(`${b.url}/mcp/${spec.id}`, b.auth, '');
      },
    ],
    [
      'bridge /mcp',
      async () => {
        const b = await startBridge({ config, token: TOKEN });
        return overHttp(`${b.url}/mcp`, b.auth, `${spec.id}__`);
      },
    ],
    [
      'ACP chain (stdio proxy -> bridge stream link)',
      async () => {
        const b = await startBridge({ config, token: TOKEN });
        const link = {
          type: 'bridge',
          url: `${b.url}/mcp/${spec.id}`,
          headers: { Authorization: 'Bearer ${MCP_BRIDGE_TOKEN}' },
          clientCapabilities: FULL_FLAGS,
        };
        return overStdio(
          process.execPath,
          proxyArgs({ maxResultBytes: 'off', mcpServers: { [spec.id]: link } }),
          `${spec.id}__`,
          {
            MCP_BRIDGE_TOKEN: TOKEN,
          },
        );
      },
    ],
    [
      'convert',
      async () => {
        const { url, child } = await spec.http();
        const ep = await overStdio(process.execPath, [CLI, 'convert', url, '--no-watchdog'], '');
        return {
          ...ep,
          close: async () => {
            await ep.close();
            child.kill('SIGTERM');
            if (!(await waitNoProcess(child.pid!, 8000))) throw new Error(`server ${child.pid} outlived its test`);
          },
        };
      },
    ],
  ];
}

/** Stdio aggregation of `config` (names prefixed by server id) under the full client. */
export function stdioAggregation(config: unknown): Promise<Endpoint> {
  return overStdio(process.execPath, [CLI, '--config', JSON.stringify(config), '--no-watchdog'], '');
}

/** Stops every bridge and HTTP server the paths started. */
export async function cleanupPaths(): Promise<void> {
  await cleanupBridges();
  for (const c of httpChildren.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    if (c.pid) await waitNoProcess(c.pid, 8000);
  }
}

/** Runs `transcript` on a direct connection to `spec` (the baseline every path is compared with), then closes it. */
export async function directTranscript<T>(spec: ServerSpec, transcript: (e: Endpoint) => Promise<T>): Promise<T> {
  const direct = await paths(spec)[0][1]();
  try {
    return await transcript(direct);
  } finally {
    await direct.close();
  }
}
