// maxResultBytes through the built CLI: an aggregate session (the stdio aggregation, the
// bridge's /mcp) gets a tool result over the cap cut to it with a note naming a resource URI,
// and resources/read of that URI returns the whole, byte-equal, in pages when it is over
// --max-message-bytes; a result at the cap, "off", and /mcp/<id> pass untouched; the store is
// per session and bounded, per session and across the bridge's sessions. Real processes: the CLI, the bridge, an SDK v1 fixture server,
// SDK v1 clients (and an SDK v2 client speaking 2026-07-28).
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI, cleanup, readPids, tempDir, trackPids, waitNoProcess } from '../../../helpers/cliProcess.js';
import { cleanupBridges, startBridge } from '../../../helpers/bridgeProcess.js';
import { closeModernClients, stdioClient as modernStdioClient } from '../../../helpers/modernClient.js';
import { FIXTURES } from '../../../helpers/paths.js';

const SIZED = join(FIXTURES, 'sizedTextServer.mjs');
const MB2 = 2 * 1024 * 1024;
const DEFAULT_CAP = 100_000;
const CALL_TIMEOUT_MS = 120_000;
const ITEM = 'qiming-mcp-runtime/item';
const PAGE = 'qiming-mcp-runtime/page';

type Item = { type: string; text?: string; data?: string; mimeType?: string };
type ToolResult = { content: Item[]; isError?: boolean; structuredContent?: Record<string, unknown> };
type Contents = { uri: string; text?: string; blob?: string; mimeType?: string; _meta?: Record<string, unknown> }[];

const clients: { client: Client; pid?: number }[] = [];

afterEach(async () => {
  for (const { client, pid } of clients.splice(0)) {
    await client.close().catch(() => undefined);
    if (pid !== undefined) await waitNoProcess(pid, 8000);
  }
  await closeModernClients();
  await cleanupBridges();
  await cleanup();
});

// What the fixture returns (tests/fixtures/sizedTextServer.mjs), to compare byte for byte.
const PATTERN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_';
const sizedText = (bytes: number) => PATTERN.repeat(Math.ceil(bytes / PATTERN.length)).slice(0, bytes);
function sizedBase64(chars: number): string {
  const bytes = Buffer.alloc(Math.floor(chars / 4) * 3);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + 7) & 0xff;
  return bytes.toString('base64');
}

const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

/** The fixture as an entry, its pid recorded (checked gone at the end); `extra`: more entry fields. */
function sizedEntry(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const pidFile = join(tempDir(), 'pids.jsonl');
  pidFiles.push(pidFile);
  return { command: process.execPath, args: [SIZED, pidFile], ...extra };
}
const pidFiles: string[] = [];

/** An SDK v1 client on the stdio aggregation of `config`; strict: it checks the server's capabilities. */
async function aggregate(config: Record<string, unknown>, cliArgs: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--config', JSON.stringify(config), ...cliArgs],
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => {});
  const client = new Client({ name: 'result-cap', version: '1.0.0' }, { enforceStrictCapabilities: true });
  await client.connect(transport);
  clients.push({ client, pid: transport.pid ?? undefined });
  trackPids(transport.pid!);
  await client.listTools();
  for (const f of pidFiles.splice(0)) readPids(f);
  return client;
}

function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS }) as Promise<ToolResult>;
}

/** The URI a cut result's note names. */
function keptUri(result: ToolResult): string {
  const m = /the uri "(qiming-result:\/\/[0-9a-f]{12}\/\d+)"/.exec(result.content.at(-1)!.text ?? '');
  if (!m) throw new Error(`no kept-result URI in ${JSON.stringify(result.content.at(-1))}`);
  return m[1]!;
}

/** Every page of a kept result, and its original items put back by index. */
async function readWhole(
  client: Client,
  uri: string,
): Promise<{
  pages: { contents: Contents; bytes: number }[];
  items: Map<number, Contents[number] & { value: string }>;
}> {
  const pages: { contents: Contents; bytes: number }[] = [];
  const items = new Map<number, Contents[number] & { value: string }>();
  let next: string | undefined = uri;
  while (next) {
    const page = await client.readResource({ uri: next }, { timeout: CALL_TIMEOUT_MS });
    pages.push({ contents: page.contents as Contents, bytes: jsonBytes(page) });
    for (const c of page.contents as Contents) {
      const item = c._meta?.[ITEM] as { index: number } | undefined;
      if (!item) continue;
      const had = items.get(item.index);
      items.set(item.index, { ...c, value: (had?.value ?? '') + (c.text ?? c.blob ?? '') });
    }
    next = (page._meta?.[PAGE] as { next?: string } | undefined)?.next;
  }
  return { pages, items };
}

describe('the stdio aggregation cuts a tool result over maxResultBytes', () => {
  it(
    'a 2 MB text comes back under the default cap with a note, and its resource returns all 2 MB byte-equal',
    { timeout: 120_000 },
    async () => {
      const client = await aggregate({ mcpServers: { sized: sizedEntry() } });
      expect(client.getServerCapabilities()?.resources).toBeDefined();
      const res = await call(client, 'sized__text', { bytes: MB2 });
      expect(jsonBytes(res)).toBeLessThanOrEqual(DEFAULT_CAP);
      expect(res.isError).toBeUndefined();
      expect(res.content).toHaveLength(2);
      expect(sizedText(MB2).startsWith(res.content[0]!.text!)).toBe(true);
      expect(res.content[0]!.text!.length).toBeGreaterThan(DEFAULT_CAP - 1000);
      expect(res.content[1]!.text).toMatch(
        /^\[qiming-mcp-runtime\] This tool result is 2,097,1\d\d bytes, over the proxy's limit of 100,000 bytes \(maxResultBytes\), so it was cut\. Kept above: item 1 \(text\) cut to its first [\d,]+ of 2,097,152 characters\. The whole result: resources\/read with the uri "qiming-result:\/\/[0-9a-f]{12}\/1"\.$/,
      );
      const whole = await readWhole(client, keptUri(res));
      expect(whole.pages).toHaveLength(1);
      expect(whole.items.size).toBe(1);
      expect(whole.items.get(0)!.mimeType).toBe('text/plain');
      expect(Buffer.from(whole.items.get(0)!.value).equals(Buffer.from(sizedText(MB2)))).toBe(true);
      // The session goes on: a small result passes as it is.
      expect(await call(client, 'sized__echo', { text: 'after' })).toEqual({
        content: [{ type: 'text', text: 'after' }],
      });
    },
  );

  it(
    'reads a whole over --max-message-bytes in pages, each under it, that put back all 2 MB',
    { timeout: 120_000 },
    async () => {
      const cap = 1_200_000;
      const client = await aggregate({ mcpServers: { sized: sizedEntry() } }, ['--max-message-bytes', String(cap)]);
      const res = await call(client, 'sized__text', { bytes: MB2 });
      expect(res.content[1]!.text).toContain(
        `It comes in 2 pages, each naming the next ("${keptUri(res)}?page=2" and on).`,
      );
      const whole = await readWhole(client, keptUri(res));
      expect(whole.pages).toHaveLength(2);
      for (const p of whole.pages) expect(p.bytes).toBeLessThan(cap);
      expect(Buffer.from(whole.items.get(0)!.value).equals(Buffer.from(sizedText(MB2)))).toBe(true);
    },
  );

  it(
    'an image over the cap is left out, the texts around it kept, and its blob reads back equal',
    { timeout: 120_000 },
    async () => {
      const client = await aggregate({ mcpServers: { sized: sizedEntry() } });
      const res = await call(client, 'sized__image', { bytes: 300_000 });
      expect(jsonBytes(res)).toBeLessThanOrEqual(DEFAULT_CAP);
      expect(res.content.slice(0, 2)).toEqual([
        { type: 'text', text: 'an image follows' },
        { type: 'text', text: 'after the image' },
      ]);
      expect(res.content[2]!.text).toMatch(/Kept above: 2 of 3 content items whole\. Left out: 1 item \(image\)\./);
      const whole = await readWhole(client, keptUri(res));
      expect([...whole.items.keys()]).toEqual([0, 1, 2]);
      expect(whole.items.get(1)!.mimeType).toBe('image/png');
      expect(whole.items.get(1)!.blob).toBeDefined();
      expect(whole.items.get(1)!.value).toBe(sizedBase64(300_000));
      expect(whole.items.get(2)!.value).toBe('after the image');
    },
  );

  it('a result of exactly maxResultBytes passes untouched; one byte more is cut', { timeout: 120_000 }, async () => {
    const cap = 5000;
    const client = await aggregate({ maxResultBytes: cap, mcpServers: { sized: sizedEntry() } });
    const envelope = jsonBytes(await call(client, 'sized__text', { bytes: 0 }));
    const at = await call(client, 'sized__text', { bytes: cap - envelope });
    expect(jsonBytes(at)).toBe(cap);
    expect(at).toEqual({ content: [{ type: 'text', text: sizedText(cap - envelope) }] });
    const over = await call(client, 'sized__text', { bytes: cap - envelope + 1 });
    expect(over.content).toHaveLength(2);
    expect(jsonBytes(over)).toBeLessThanOrEqual(cap);
    expect(over.content[1]!.text).toContain(`is ${(cap + 1).toLocaleString('en-US')} bytes`);
  });

  it(
    '"off" passes results whole, and a server\'s own maxResultBytes wins over the top level',
    { timeout: 120_000 },
    async () => {
      const offTop = await aggregate({
        maxResultBytes: 'off',
        mcpServers: { whole: sizedEntry(), small: sizedEntry({ maxResultBytes: 2048 }) },
      });
      const text = await call(offTop, 'whole__text', { bytes: 300_000 });
      expect(text).toEqual({ content: [{ type: 'text', text: sizedText(300_000) }] });
      expect((await call(offTop, 'small__text', { bytes: 3000 })).content).toHaveLength(2);

      const offServer = await aggregate({
        maxResultBytes: 2048,
        mcpServers: { whole: sizedEntry({ maxResultBytes: 'off' }) },
      });
      expect(await call(offServer, 'whole__text', { bytes: 300_000 })).toEqual(text);

      // Everything off: the aggregate is what it was, no resources capability of its own.
      const allOff = await aggregate({ maxResultBytes: 'off', mcpServers: { whole: sizedEntry() } });
      expect(allOff.getServerCapabilities()?.resources).toBeUndefined();
    },
  );

  it(
    'structuredContent is kept whole when it fits and the content is cut; when it does not, it is left out as an isError the SDK client takes',
    { timeout: 120_000 },
    async () => {
      const client = await aggregate({ maxResultBytes: 4096, mcpServers: { sized: sizedEntry() } });
      // The SDK client checks structuredContent against the tool's outputSchema; both answers pass it.
      const fits = await call(client, 'sized__structured', { bytes: 2500 });
      expect(fits.isError).toBeUndefined();
      expect(fits.structuredContent).toEqual({ text: sizedText(2500) });
      expect(jsonBytes(fits)).toBeLessThanOrEqual(4096);
      expect(fits.content.at(-1)!.text).toContain('structuredContent is kept whole.');

      const over = await call(client, 'sized__structured', { bytes: 10_000 });
      expect(over.isError).toBe(true);
      expect(over.structuredContent).toBeUndefined();
      expect(over.content.at(-1)!.text).toMatch(
        /structuredContent \(10,01\d bytes\) is left out; the call itself succeeded/,
      );
      const whole = await readWhole(client, keptUri(over));
      expect(whole.items.get(1)).toMatchObject({
        mimeType: 'application/json',
        _meta: { [ITEM]: { type: 'structuredContent' } },
      });
      expect(JSON.parse(whole.items.get(1)!.value)).toEqual({ text: sizedText(10_000) });
    },
  );

  it(
    'keeps at most 20 cut results per session: the oldest is gone, with a clear error',
    { timeout: 120_000 },
    async () => {
      const client = await aggregate({ maxResultBytes: 2048, mcpServers: { sized: sizedEntry() } });
      const uris: string[] = [];
      for (let i = 0; i < 21; i++) uris.push(keptUri(await call(client, 'sized__text', { bytes: 3000 })));
      await expect(client.readResource({ uri: uris[0]! })).rejects.toThrow(
        /qiming-result:\/\/[0-9a-f]{12}\/1 was dropped: this session keeps its latest 20 cut results \(at most 67,108,864 bytes, and 134,217,728 bytes across sessions\), and this one was older; call the tool again for its result/,
      );
      for (const uri of [uris[1]!, uris[20]!]) {
        const whole = await readWhole(client, uri);
        expect(whole.items.get(0)!.value).toBe(sizedText(3000));
      }
    },
  );

  it("a 2026-07-28 client's held call is cut the same way and reads the whole back", { timeout: 120_000 }, async () => {
    const config = { maxResultBytes: 4096, mcpServers: { sized: sizedEntry() } };
    const client = await modernStdioClient(process.execPath, [
      CLI,
      '--config',
      JSON.stringify(config),
      '--no-watchdog',
    ]);
    const res = (await client.callTool({ name: 'sized__text', arguments: { bytes: 300_000 } })) as ToolResult;
    for (const f of pidFiles.splice(0)) readPids(f);
    expect(jsonBytes(res.content)).toBeLessThanOrEqual(4096);
    const read = await client.readResource({ uri: keptUri(res) });
    expect((read.contents[0] as { text: string }).text).toBe(sizedText(300_000));
  });
});

describe("the bridge's /mcp cuts, /mcp/<id> passes whole, and a kept result is its session's alone", () => {
  it('cuts at /mcp, not at /mcp/<id>, and another session cannot read the URI', { timeout: 120_000 }, async () => {
    const pidFile = join(tempDir(), 'pids.jsonl');
    const b = await startBridge({
      config: { mcpServers: { sized: { command: process.execPath, args: [SIZED, pidFile] } } },
    });
    readPids(pidFile);
    const { client: one } = await b.client('/mcp');
    const res = await call(one, 'sized__text', { bytes: MB2 });
    expect(jsonBytes(res)).toBeLessThanOrEqual(DEFAULT_CAP);
    const uri = keptUri(res);
    const whole = await readWhole(one, uri);
    expect(Buffer.from(whole.items.get(0)!.value).equals(Buffer.from(sizedText(MB2)))).toBe(true);

    const { client: other } = await b.client('/mcp');
    await expect(other.readResource({ uri })).rejects.toThrow(
      `Unknown resource: ${uri} (a result the proxy cut is read back only in the session that received it, while it lasts)`,
    );

    const { client: own } = await b.client('/mcp/sized');
    expect(own.getServerCapabilities()?.resources).toBeUndefined();
    expect(await call(own, 'text', { bytes: MB2 })).toEqual({ content: [{ type: 'text', text: sizedText(MB2) }] });
  });

  it(
    'keeps at most 128 MiB of cut results across sessions: the session keeping the most drops its oldest; a closed one frees its share',
    { timeout: 300_000 },
    async () => {
      const pidFile = join(tempDir(), 'pids.jsonl');
      const b = await startBridge({
        config: { mcpServers: { sized: { command: process.execPath, args: [SIZED, pidFile] } } },
      });
      readPids(pidFile);
      // 20 MB results (a server's message is at most 20 MiB): three fit one session's 64 MiB,
      // six two sessions' 128 MiB, seven do not.
      const BYTES = 20_000_000;
      const keep = async (client: Client) => keptUri(await call(client, 'sized__text', { bytes: BYTES }));
      /** Whether the session still keeps `uri`: a page past the last names the pages of a kept one. */
      const kept = async (client: Client, uri: string) => {
        const message = await client.readResource({ uri: `${uri}?page=99` }).then(
          () => 'read',
          (err: Error) => err.message,
        );
        if (message.includes('has 2 pages, not a page 99')) return true;
        expect(message).toMatch(
          /was dropped: this session keeps its latest 20 cut results \(at most 67,108,864 bytes, and 134,217,728 bytes across sessions\)/,
        );
        return false;
      };
      const a = await b.client('/mcp');
      const { client: bee } = await b.client('/mcp');
      const { client: see } = await b.client('/mcp');
      const aUris = [await keep(a.client), await keep(a.client), await keep(a.client)];
      const bUris = [await keep(bee), await keep(bee), await keep(bee)];
      for (const uri of aUris) expect(await kept(a.client, uri)).toBe(true);
      // The seventh is over 128 MiB: of the two sessions keeping the most (a tie), the first drops its oldest.
      const c1 = await keep(see);
      expect(await kept(a.client, aUris[0]!)).toBe(false);
      for (const uri of aUris.slice(1)) expect(await kept(a.client, uri)).toBe(true);
      for (const uri of bUris) expect(await kept(bee, uri)).toBe(true);
      expect(await kept(see, c1)).toBe(true);

      // The first session ends: its two results stop counting, and another fits beside the rest.
      await (a.transport as StreamableHTTPClientTransport).terminateSession();
      await a.client.close();
      await b.waitServer('sized', (s) => s.sessions === 2, 30_000, 'two sessions after one ended');
      const c2 = await keep(see);
      for (const uri of bUris) expect(await kept(bee, uri)).toBe(true);
      for (const uri of [c1, c2]) expect(await kept(see, uri)).toBe(true);
    },
  );

  it(
    "applies a new maxResultBytes on reload: a top-level change in place, a server's own with its restart",
    { timeout: 120_000 },
    async () => {
      const dir = tempDir();
      const pidFile = join(dir, 'pids.jsonl');
      const file = join(dir, 'config.json');
      const entry = { command: process.execPath, args: [SIZED, pidFile] };
      writeFileSync(file, JSON.stringify({ mcpServers: { sized: entry } }));
      const b = await startBridge({ config: file });
      readPids(pidFile);
      const { client } = await b.client('/mcp');
      expect((await call(client, 'sized__text', { bytes: 3000 })).content).toHaveLength(1);

      writeFileSync(file, JSON.stringify({ maxResultBytes: 2048, mcpServers: { sized: entry } }));
      const reloaded = await b.fetch('/config/reload', { method: 'POST' });
      expect(await reloaded.json()).toMatchObject({ ok: true, options: ['maxResultBytes'], restarted: [] });
      expect((await call(client, 'sized__text', { bytes: 3000 })).content).toHaveLength(2);

      writeFileSync(
        file,
        JSON.stringify({ maxResultBytes: 2048, mcpServers: { sized: { ...entry, maxResultBytes: 'off' } } }),
      );
      expect(await (await b.fetch('/config/reload', { method: 'POST' })).json()).toMatchObject({
        ok: true,
        restarted: ['sized'],
      });
      await b.waitServer('sized', (s) => s.state === 'ready', 30_000, 'ready after its restart');
      readPids(pidFile);
      expect(await call(client, 'sized__text', { bytes: 3000 })).toEqual({
        content: [{ type: 'text', text: sizedText(3000) }],
      });
    },
  );
});
