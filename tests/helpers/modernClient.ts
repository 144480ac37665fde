// 2026-07-28 clients for the era tests of the stream link and convert: an SDK v2 Client on a
// command's stdio (pinned to 2026-07-28 or negotiating), the transparency scenario every path
// is compared on, and a raw JSON-RPC line client for what the SDK hides (resultType, the
// exact input_required result). `closeModernClients()` (from afterEach) ends every process.
import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI } from './paths.js';
import { waitNoProcess } from './processGone.js';
import { waitFor } from './waitFor.js';
import { scaled } from './loadScale.js';

const closers: (() => Promise<void>)[] = [];

/** Ends every client and raw process the helpers started, and checks they are gone. */
export async function closeModernClients(): Promise<void> {
  for (const c of closers.splice(0).reverse()) await c();
}

export type Negotiation = 'auto' | { pin: string };

/** The arguments of the stdio aggregation (the CLI) serving `servers`. */
export function proxyArgs(servers: Record<string, unknown>): string[] {
  return [CLI, '--config', JSON.stringify({ mcpServers: servers }), '--no-watchdog'];
}

export interface StdioClientOptions {
  /** Runs on the Client before it connects: request handlers to have in place from the start. */
  setup?: (client: Client) => void;
}

/** An SDK v2 client on `command args` over stdio. */
export async function stdioClient(
  command: string,
  args: string[],
  mode: Negotiation = { pin: '2026-07-28' },
  capabilities: Record<string, unknown> = {},
  options: StdioClientOptions = {},
): Promise<Client> {
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  const client = new Client({ name: 'era-test', version: '1' }, { versionNegotiation: { mode }, capabilities });
  options.setup?.(client);
  await client.connect(transport);
  const pid = transport.pid;
  closers.push(async () => {
    await client.close().catch(() => undefined);
    if (pid && !(await waitNoProcess(pid, 8000))) throw new Error(`process ${pid} outlived its test`);
  });
  return client;
}

/** Fields only one era carries on a result: not what the transparency tests compare. */
function core(result: unknown): Record<string, unknown> {
  const { resultType: _a, ttlMs: _b, cacheScope: _c, ...rest } = result as Record<string, unknown>;
  return rest;
}

/**
 * Everything a client gets of one server: its lists (names without `prefix`; resources by
 * `scheme`), an `echo` call, a read of its first resource and its `greet` prompt.
 */
export async function scenario(client: Client, scheme: string, prefix = '') {
  const mine = <T extends { name: string }>(items: T[]) =>
    items.filter((i) => i.name.startsWith(prefix)).map((i) => ({ ...i, name: i.name.slice(prefix.length) }));
  // `execution` (2025-11-25 tasks) is dropped by the SDK v2 client in the 2026 era (tasks are
  // an extension there), though the proxy passes it on the wire: not compared.
  const tools = mine((await client.listTools()).tools).map(({ execution: _e, ...t }) => t);
  const resources = (await client.listResources()).resources.filter((r) => r.uri.startsWith(scheme));
  const prompts = mine((await client.listPrompts()).prompts);
  return {
    tools,
    resources,
    prompts,
    echo: core(await client.callTool({ name: `${prefix}echo`, arguments: { text: 'hi' } })),
    read: core(await client.readResource({ uri: resources[0]!.uri })),
    prompt: core(await client.getPrompt({ name: `${prefix}greet`, arguments: { who: 'Ada' } })),
  };
}

/** The 2026-07-28 envelope a raw request carries. */
export function envelope(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1' },
  };
}

/** A raw newline-delimited JSON-RPC client on a process's stdio. */
export class RawLines {
  readonly child: ChildProcess;
  readonly messages: Record<string, any>[] = [];
  stderr = '';
  private buf = '';
  private nextId = 1;

  constructor(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
    this.child.stdout!.on('data', (d: Buffer) => {
      this.buf += d.toString('utf8');
      const lines = this.buf.split('\n');
      this.buf = lines.pop()!;
      for (const l of lines) if (l.trim()) this.messages.push(JSON.parse(l) as Record<string, any>);
    });
    this.child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString('utf8')));
    this.child.stdin!.on('error', () => undefined);
    const pid = this.child.pid!;
    closers.push(async () => {
      this.child.stdin!.end();
      if (!(await waitNoProcess(pid, 8000))) {
        this.child.kill('SIGKILL');
        throw new Error(`process ${pid} did not end on stdin EOF`);
      }
    });
  }

  send(msg: unknown): void {
    this.child.stdin!.write(`${JSON.stringify(msg)}\n`);
  }

  /** Sends a request and resolves with its whole response (result or error). */
  async request(method: string, params: Record<string, unknown>, timeoutMs = 15_000): Promise<Record<string, any>> {
    const id = `r${this.nextId++}`;
    this.send({ jsonrpc: '2.0', id, method, params });
    return waitFor(
      () => this.messages.find((m) => m.id === id && ('result' in m || 'error' in m)),
      scaled(timeoutMs),
      `the answer to ${method} (stderr: ${this.stderr.slice(-800)})`,
    );
  }
}
