// The built CLI in stdio aggregation mode against a real upstream, the npm package
// @modelcontextprotocol/server-memory: an SDK client session, a raw session whose stdout is
// checked line by line, a Content-Length framed session with non-ASCII data, and input
// piped in all at once before EOF.
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CLI,
  CliProcess,
  INIT,
  INITIALIZED,
  cleanup,
  configJson,
  memoryEntry,
  runCli,
  tempDir,
  trackPids,
  waitFor,
  waitNoProcess,
} from '../../helpers/cliProcess.js';

afterEach(cleanup);

/** Pids whose parent is `pid` (Linux `ps`). */
function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there is no such process
  }
}

function textOf(result: unknown): string {
  return ((result as { content: { type: string; text: string }[] }).content ?? []).map((c) => c.text).join('');
}

describe('stdio aggregation with server-memory', () => {
  it('lists and calls memory tools through the SDK client, and leaves no process behind', async () => {
    const dir = tempDir();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, '--config', configJson({ memory: memoryEntry(dir) })],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(transport);
    const proxyPid = transport.pid!;
    trackPids(proxyPid);

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'memory__create_entities',
        'memory__read_graph',
        'memory__open_nodes',
        'memory__search_nodes',
      ]),
    );

    const created = await client.callTool({
      name: 'memory__create_entities',
      arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
    });
    expect(created.isError).toBeFalsy();
    const graph = await client.callTool({ name: 'memory__read_graph', arguments: {} });
    expect(textOf(graph)).toContain('wrote the first program');
    // The server really wrote its file where the config's env told it to.
    expect(readFileSync(`${dir}/memory.jsonl`, 'utf8')).toContain('Ada');

    const servers = await waitFor(
      () => childPids(proxyPid).length > 0 && childPids(proxyPid),
      5000,
      'the upstream server pid',
    );
    trackPids(...servers);
    await client.close();
    expect(await waitNoProcess(proxyPid, 8000)).toBe(true);
    for (const pid of servers) expect(await waitNoProcess(pid, 5000)).toBe(true);
  });

  it('writes nothing but JSON-RPC lines on stdout and exits 0 on stdin EOF', async () => {
    const dir = tempDir();
    const p = new CliProcess(['--config', configJson({ memory: memoryEntry(dir) })]);
    await p.initialize();
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    p.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: {
        name: 'memory__create_entities',
        arguments: { entities: [{ name: 'Grace', entityType: 'person', observations: ['COBOL'] }] },
      },
    });
    expect((await p.reply(2)).result.tools.length).toBeGreaterThan(5);
    expect((await p.reply(3)).error).toBeUndefined();
    // server-memory handles requests concurrently: search only once the write is answered.
    p.send({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'memory__search_nodes', arguments: { query: 'COBOL' } },
    });
    expect(textOf((await p.reply(4)).result)).toContain('Grace');
    p.child.stdin!.end();
    expect(await p.waitExit(10_000)).toEqual({ code: 0, signal: null });

    const raw = p.stdout.toString('utf8');
    expect(raw.endsWith('\n')).toBe(true);
    const lines = raw.split('\n').slice(0, -1);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) {
      const msg = JSON.parse(line) as Record<string, unknown>;
      expect(msg.jsonrpc).toBe('2.0');
      expect('method' in msg || ('id' in msg && ('result' in msg || 'error' in msg))).toBe(true);
    }
    // The upstream's own stderr went to our stderr under its tag, not to stdout.
    expect(p.stderr).toMatch(/\[memory\] Knowledge Graph MCP Server running on stdio/);
  });

  it('answers Content-Length framed requests in Content-Length framing with the UTF-8 byte count', async () => {
    const dir = tempDir();
    const p = new CliProcess(['--config', configJson({ memory: memoryEntry(dir) })]);
    const frame = (msg: unknown): Buffer => {
      const body = Buffer.from(JSON.stringify(msg), 'utf8');
      return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
    };
    const name = 'Café 漢字 ✓ 😀';
    p.write(frame(INIT));
    p.write(frame(INITIALIZED));
    p.write(
      frame({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'memory__create_entities',
          arguments: { entities: [{ name, entityType: 'café', observations: ['naïve résumé 日本語'] }] },
        },
      }),
    );

    const parse = (): { length: number; body: Buffer }[] => {
      const frames: { length: number; body: Buffer }[] = [];
      let buf = p.stdout;
      for (;;) {
        const head = /^Content-Length: (\d+)\r\n\r\n/i.exec(buf.subarray(0, 64).toString('latin1'));
        if (!head) break;
        const start = head[0].length;
        const length = Number(head[1]);
        if (buf.length < start + length) break;
        frames.push({ length, body: buf.subarray(start, start + length) });
        buf = buf.subarray(start + length);
      }
      return frames;
    };
    const hasReply = (id: number) =>
      parse().some((x) => (JSON.parse(x.body.toString('utf8')) as { id?: number }).id === id);
    await waitFor(() => hasReply(2), 15_000, 'the reply to id 2');
    // server-memory handles requests concurrently: read back only once the write is answered.
    p.write(
      frame({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'memory__open_nodes', arguments: { names: [name] } },
      }),
    );
    const frames = await waitFor(
      () => {
        const f = parse();
        return f.some((x) => (JSON.parse(x.body.toString('utf8')) as { id?: number }).id === 3) && f;
      },
      15_000,
      `the reply to id 3 (stdout so far: ${p.stdout.toString('utf8').slice(0, 300)})`,
    );

    // Every byte on stdout belongs to a Content-Length frame whose header is the body's byte count.
    const total = frames.reduce((n, f) => n + `Content-Length: ${f.length}\r\n\r\n`.length + f.length, 0);
    expect(total).toBe(p.stdout.length);
    const byId = new Map<number, Record<string, any>>();
    for (const f of frames) {
      const text = f.body.toString('utf8');
      expect(Buffer.byteLength(text, 'utf8')).toBe(f.length);
      const msg = JSON.parse(text) as Record<string, any>;
      if (typeof msg.id === 'number') byId.set(msg.id, msg);
    }
    expect(byId.get(1)?.result?.serverInfo).toBeDefined();
    expect(byId.get(2)?.error).toBeUndefined();
    const opened = textOf(byId.get(3)?.result);
    expect(opened).toContain(name);
    expect(opened).toContain('naïve résumé 日本語');
    // The reply carrying non-ASCII text is longer in bytes than in UTF-16 code units.
    const reply3 = frames.find((f) => f.body.toString('utf8').includes('"id":3'))!;
    expect(reply3.length).toBeGreaterThan(reply3.body.toString('utf8').length);
    expect(existsSync(`${dir}/memory.jsonl`)).toBe(true);

    p.child.stdin!.end();
    expect((await p.waitExit(10_000)).code).toBe(0);
  });

  it('answers every request piped in before EOF (echo request | proxy)', async () => {
    const dir = tempDir();
    const input = [
      INIT,
      INITIALIZED,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'memory__read_graph', arguments: {} } },
      { jsonrpc: '2.0', id: 4, method: 'ping' },
    ]
      .map((m) => JSON.stringify(m))
      .join('\n');
    // No trailing newline: the last message ends at EOF.
    const { code, stdout } = await runCli(['--config', configJson({ memory: memoryEntry(dir) })], {
      input,
      timeoutMs: 20_000,
    });
    expect(code).toBe(0);
    const replies = stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);
    const ids = replies.filter((m) => m.id !== undefined).map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining([1, 2, 3, 4]));
    expect(replies.find((m) => m.id === 2)?.result.tools.map((t: { name: string }) => t.name)).toContain(
      'memory__create_entities',
    );
    expect(replies.find((m) => m.id === 3)?.error).toBeUndefined();
    expect(replies.find((m) => m.id === 4)?.result).toEqual({});
  });
});
