// The logger's bounded stderr queue, the cutting of long stderr lines and
// the per-server rate limit of logged stderr lines, on real sockets and real processes.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatEntry, Logger, streamSink } from '../../../src/proxy/common/logger.js';
import { CUT_MARKER, MAX_STDERR_LINE_CHARS, StderrLines } from '../../../src/proxy/process/stderrLines.js';
import {
  ChildProcessTransport,
  STDERR_LOG_BURST,
  STDERR_LOG_PER_SECOND,
} from '../../../src/proxy/process/childProcessTransport.js';
import { printable } from '../../../src/proxy/common/printable.js';
import { FIXTURES } from '../../helpers/paths.js';
import { waitFor } from '../../helpers/waitFor.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A loopback connection whose far end does not read until told to. */
async function slowReader(): Promise<{ client: Socket; peer: Socket; server: Server }> {
  const server = createServer({ pauseOnConnect: true });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const accepted = new Promise<Socket>((r) => server.once('connection', r));
  const client = connect(port, '127.0.0.1');
  await new Promise((r) => client.once('connect', r));
  const peer = await accepted;
  cleanups.push(() => {
    client.destroy();
    peer.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { client, peer, server };
}

describe('streamSink (the stderr sink)', () => {
  it('keeps at most the cap queued for a reader that does not read, then says how many lines it dropped', async () => {
    const { client, peer } = await slowReader();
    const cap = 256 * 1024;
    const sink = streamSink(() => client, cap);
    const line = formatEntry('info', 'srv', 'x'.repeat(200));
    let maxQueued = 0;
    for (let i = 0; i < 100_000; i++) {
      sink.write(line);
      maxQueued = Math.max(maxQueued, client.writableLength);
    }
    // 100k lines are ~22 MB; what waits in memory stays at the cap (plus one line).
    expect(maxQueued).toBeLessThanOrEqual(cap + line.length);
    let got = '';
    peer.on('data', (d: Buffer) => (got += d.toString('utf8')));
    peer.resume();
    const m = await waitFor(
      () => /\[warn\] \[logger\] (\d+) lines dropped: stderr was not read fast enough/.exec(got),
      5000,
      'the dropped notice',
    );
    expect(Number(m[1])).toBeGreaterThan(50_000);
    // Later lines flow again.
    sink.write(formatEntry('info', 'srv', 'after the stall'));
    await waitFor(() => got.includes('after the stall'), 5000, 'a line after the stall');
  });
});

describe('StderrLines', () => {
  it('cuts a long line with a marker, skips its rest, and keeps the cut line in the tail', () => {
    const seen: string[] = [];
    const lines = new StderrLines(3, (l) => seen.push(l));
    lines.push(Buffer.from('short one\n'));
    const long = 'a'.repeat(MAX_STDERR_LINE_CHARS * 10);
    for (let i = 0; i < long.length; i += 1000) lines.push(Buffer.from(long.slice(i, i + 1000)));
    lines.push(Buffer.from('tail of the long line\nnext\r\nlast without newline'));
    lines.end();
    expect(seen).toEqual(['short one', 'a'.repeat(MAX_STDERR_LINE_CHARS) + CUT_MARKER, 'next', 'last without newline']);
    expect(lines.tail()).toEqual(seen.slice(1));
  });
});

describe('printable', () => {
  it('escapes control and bidi characters and shortens', () => {
    expect(printable('a\x1b[31mb\r\n\t\x00\u202ec', 100)).toBe('a\\x1b[31mb\\r\\n\\t\\x00\\u202ec');
    expect(printable('x'.repeat(50), 10)).toBe('xxxxxxxxxx...');
  });
});

describe('ChildProcessTransport stderr rate limit', () => {
  it('logs a bounded number of flood lines with a suppressed summary, while the tail keeps the latest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qiming-flood-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const logged: string[] = [];
    const logger = new Logger('test', { level: 'info', sinks: [{ write: (l) => logged.push(l) }] });
    const t = new ChildProcessTransport({
      command: process.execPath,
      args: [join(FIXTURES, 'floodServer.mjs'), join(dir, 'pids.jsonl'), '--stderr-flood'],
      name: 'flood',
      logger,
      stdinGraceMs: 200,
      termGraceMs: 500,
    });
    cleanups.push(() => t.close());
    const t0 = Date.now();
    await t.start();
    await waitFor(() => logged.some((l) => l.includes('suppressed')), 5000, 'a suppressed summary');
    // The tail is not rate-limited: it comes to hold the newest lines, of far more than were
    // logged (waited for, not slept: a loaded machine floods more slowly).
    const num = (l: string) => Number(/(?:flood|long) line (\d+)/.exec(l)?.[1] ?? 0);
    const floodLogged = () => logged.filter((l) => l.includes('[info] [flood] ')).length;
    await waitFor(
      () => Math.max(...t.stderrTail().map(num)) > floodLogged() * 10,
      20_000,
      'the tail to run far ahead of the rate-limited log',
    );
    const floodLines = floodLogged();
    const seconds = (Date.now() - t0) / 1000;
    expect(floodLines).toBeLessThanOrEqual(STDERR_LOG_BURST + Math.ceil(seconds * STDERR_LOG_PER_SECOND) + 1);
    expect(logged.join('')).toMatch(/\[warn\] \[flood\] suppressed \d+ stderr lines \(more than 50 a second\)/);
    const lastLogged = Math.max(...logged.map(num));
    const tailNewest = Math.max(...t.stderrTail().map(num));
    expect(tailNewest).toBeGreaterThanOrEqual(lastLogged);
    expect(tailNewest).toBeGreaterThan(floodLines * 10);
    expect(t.stderrTail()).toHaveLength(200);
    await t.close();
  });
});
