// A server's reply larger than a client's message cap: a 10 MiB text (10 MiB plus the SDK's
// envelope on the wire) passes byte-equal on every path of the built CLI (the servers with
// maxResultBytes "off": the cut of an aggregate's large results is resultCap.test.ts), and a reply over a
// server's cap (twice --max-message-bytes) fails its call at once with an error naming the size
// and the limit, wherever its id is, or fails every call in flight when no id can be read.
// Real processes throughout: the CLI, the bridge, an SDK v1 fixture server.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CLI, cleanup, configJson, readPids, tempDir, trackPids, waitNoProcess } from '../helpers/cliProcess.js';
import { cleanupBridges, startBridge, type BridgeProcess } from '../helpers/bridgeProcess.js';
import { startHttpFixture } from '../helpers/proxyCli.js';
import { FIXTURES } from '../helpers/paths.js';

const MiB = 1024 * 1024;
const SIZED = join(FIXTURES, 'sizedTextServer.mjs');
/** Far beyond the test's own timeout: a call that settles did so because it was answered. */
const CLIENT_TIMEOUT_MS = 600_000;
/** The SDK stdio client's read buffer, raised above its 10 MiB default so it is not the limit under test. */
const CLIENT_BUFFER_BYTES = 64 * MiB;

const clients: { client: Client; pid?: number }[] = [];
const stops: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const { client, pid } of clients.splice(0)) {
    await client.close().catch(() => undefined);
    if (pid !== undefined) await waitNoProcess(pid, 8000);
  }
  for (const stop of stops.splice(0)) await stop();
  await cleanupBridges();
  await cleanup();
});

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };

async function connect(transport: Transport, pid?: () => number | undefined): Promise<Client> {
  const client = new Client({ name: 'large-replies', version: '1.0.0' });
  await client.connect(transport);
  clients.push({ client, pid: pid?.() });
  return client;
}

/** An SDK client on a stdio command (the CLI, or the fixture directly), its read buffer raised. */
async function stdioClient(command: string[], env: Record<string, string> = {}): Promise<Client> {
  const [file, ...args] = command;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [file!, ...args],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
    maxBufferSize: CLIENT_BUFFER_BYTES,
  });
  transport.stderr?.on('data', () => {});
  const client = await connect(transport, () => transport.pid ?? undefined);
  trackPids(transport.pid!);
  return client;
}

function httpClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  return connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
}

/** The fixture as a config entry with its results passed whole, its pid recorded in `pidFile` (checked gone at the end). */
function sizedEntry(pidFile: string): { command: string; args: string[]; maxResultBytes: 'off' } {
  return { command: process.execPath, args: [SIZED, pidFile], maxResultBytes: 'off' };
}

function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return client.callTool({ name, arguments: args }, undefined, { timeout: CLIENT_TIMEOUT_MS }) as Promise<ToolResult>;
}

async function bridgeWithSized(args: string[] = []): Promise<BridgeProcess> {
  const pidFile = join(tempDir(), 'pids.jsonl');
  const bridge = await startBridge({ config: { mcpServers: { sized: sizedEntry(pidFile) } }, args });
  readPids(pidFile);
  return bridge;
}

/** A stdio proxy whose only upstream is the bridge's `sized` server over the stream link, as the app builds it for an agent. */
function chainClient(bridge: BridgeProcess, cliArgs: string[] = []): Promise<Client> {
  const entry = {
    type: 'bridge',
    url: `${bridge.url}/mcp/sized`,
    headers: { Authorization: 'Bearer ${MCP_BRIDGE_TOKEN}' },
    maxResultBytes: 'off',
  };
  return stdioClient([CLI, '--config', configJson({ sized: entry }), ...cliArgs], { MCP_BRIDGE_TOKEN: bridge.bearer });
}

describe('a 10 MiB text result, its reply over the 10 MiB client cap, passes byte-equal to a direct call', () => {
  const bytes = 10 * MiB;
  let direct: ToolResult | undefined;

  async function directResult(): Promise<ToolResult> {
    if (!direct) {
      const pidFile = join(tempDir(), 'pids.jsonl');
      const client = await stdioClient([SIZED, pidFile]);
      direct = await call(client, 'text', { bytes });
      readPids(pidFile);
      expect(direct.content[0]!.text).toHaveLength(bytes);
      // The reply carries this result plus its envelope: more than a client may send.
      expect(Buffer.byteLength(JSON.stringify({ result: direct, jsonrpc: '2.0', id: 2 }))).toBeGreaterThan(10 * MiB);
    }
    return direct;
  }

  it('through the stdio aggregation', { timeout: 120_000 }, async () => {
    const expected = await directResult();
    const pidFile = join(tempDir(), 'pids.jsonl');
    const client = await stdioClient([CLI, '--config', configJson({ sized: sizedEntry(pidFile) })]);
    expect(await call(client, 'sized__text', { bytes })).toEqual(expected);
    readPids(pidFile);
    expect((await call(client, 'sized__echo', { text: 'after' })).content[0]!.text).toBe('after');
  });

  it('through the bridge at /mcp/<id> and at /mcp', { timeout: 120_000 }, async () => {
    const expected = await directResult();
    const bridge = await bridgeWithSized();
    const one = await httpClient(`${bridge.url}/mcp/sized`, bridge.auth);
    expect(await call(one, 'text', { bytes })).toEqual(expected);
    const all = await httpClient(`${bridge.url}/mcp`, bridge.auth);
    expect(await call(all, 'sized__text', { bytes })).toEqual(expected);
  });

  it('through the ACP chain (stdio proxy, then the bridge over its stream link)', { timeout: 120_000 }, async () => {
    const expected = await directResult();
    const bridge = await bridgeWithSized();
    const client = await chainClient(bridge);
    expect(await call(client, 'sized__text', { bytes })).toEqual(expected);
  });

  it('through convert', { timeout: 120_000 }, async () => {
    const server = await startHttpFixture('http');
    stops.push(server.stop);
    const expected = await call(await httpClient(server.url), 'blob', { bytes });
    expect(expected.content[0]!.text).toHaveLength(bytes);
    const client = await stdioClient([CLI, 'convert', server.url]);
    expect(await call(client, 'blob', { bytes })).toEqual(expected);
  });
});

describe("a reply over a server's cap (twice --max-message-bytes) settles its call at once", () => {
  // --max-message-bytes 1000000: a server's cap is 2000000 bytes; these replies are 2100000 and more.
  const LIMITED = ['--max-message-bytes', '1000000'];
  const over = 2_100_000;

  async function limitedProxy(): Promise<Client> {
    const pidFile = join(tempDir(), 'pids.jsonl');
    const client = await stdioClient([CLI, '--config', configJson({ sized: sizedEntry(pidFile) }), ...LIMITED]);
    await client.listTools();
    readPids(pidFile);
    return client;
  }

  it('fails the call whose id the reply names last (as the SDK writes it), naming the size and the limit', async () => {
    const client = await limitedProxy();
    await expect(call(client, 'sized__text', { bytes: over })).rejects.toThrow(
      /server 'sized' answered with a 21000\d\d-byte message, over the 2000000-byte limit for a server's messages \(twice --max-message-bytes\); skipped/,
    );
    // Just under the cap still passes, and the server is served on.
    expect((await call(client, 'sized__text', { bytes: 1_999_000 })).content[0]!.text).toHaveLength(1_999_000);
  });

  it('fails every call in flight to that server when the reply has no id that can be read', async () => {
    const client = await limitedProxy();
    const waiting = call(client, 'sized__hang', {});
    const unreadable = call(client, 'sized__unreadable', { bytes: over });
    const reason =
      /server 'sized' sent a 21\d{5}-byte reply whose id cannot be read, over the 2000000-byte limit .*; every request awaiting an answer from it fails/;
    await expect(unreadable).rejects.toThrow(reason);
    await expect(waiting).rejects.toThrow(reason);
    expect((await call(client, 'sized__echo', { text: 'still served' })).content[0]!.text).toBe('still served');
  });

  it("answers a request of the server's over the cap with an error, so the server does not wait for ever", async () => {
    const client = await limitedProxy();
    const res = await call(client, 'sized__ask', { bytes: over });
    expect(res.content[0]!.text).toMatch(
      /^refused: .*Invalid Request: message of 21000\d\d bytes exceeds the 2000000-byte limit for a server's messages/,
    );
  });

  it(
    'fails the call at once when the reply is over the cap on the stream link of the ACP chain',
    { timeout: 120_000 },
    async () => {
      const bridge = await bridgeWithSized();
      const client = await chainClient(bridge, LIMITED);
      await expect(call(client, 'sized__text', { bytes: over })).rejects.toThrow(
        /the bridge at http:\/\/127\.0\.0\.1:\d+\/mcp\/sized answered with a 21000\d\d-byte message, over the 2000000-byte limit for a server's messages/,
      );
      expect((await call(client, 'sized__echo', { text: 'same link' })).content[0]!.text).toBe('same link');
    },
  );
});
