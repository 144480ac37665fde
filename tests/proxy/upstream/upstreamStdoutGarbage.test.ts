// Issue 13 item 7: what a stdio server writes on stdout that is not JSON-RPC. Warnings about
// it are rate-limited and sanitised (control bytes escaped, line shortened); a line is capped
// at twice the proxy's --max-message-bytes (default 20 MiB) with resync at the next newline, so
// an endless line costs bounded memory; an oversize answer fails its request at once.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { CliProcess, cleanup, configJson, readPids, tempDir } from '../../helpers/cliProcess.js';
import { FIXTURES } from '../../helpers/paths.js';
import { sampleRss } from '../../helpers/procRss.js';

afterEach(cleanup);

const FLOOD = join(FIXTURES, 'floodServer.mjs');

function start(serverArgs: string[], cliArgs: string[] = []): { p: CliProcess; pidFile: string } {
  const pidFile = join(tempDir(), 'pids.jsonl');
  // maxResultBytes off: the large answers under the server cap pass whole (their cut is resultCap.test.ts).
  const entry = { command: process.execPath, args: [FLOOD, pidFile, ...serverArgs], maxResultBytes: 'off' };
  const config = configJson({ junk: entry });
  const p = new CliProcess(['--config', config, ...cliArgs], { env: { ...process.env, MCP_PROXY_LOG_LEVEL: 'info' } });
  return { p, pidFile };
}

async function echo(p: CliProcess, id: number, text: string, timeoutMs = 15_000): Promise<void> {
  p.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'junk__echo', arguments: { text } } });
  expect((await p.reply(id, timeoutMs)).result.content[0].text).toBe(text);
}

describe('non-JSON-RPC stdout of a stdio server', () => {
  it('warns about 100k junk lines rate-limited and sanitised, and keeps serving', async () => {
    const { p, pidFile } = start(['--stdout-junk', '100000']);
    await p.initialize();
    await echo(p, 2, 'after the junk');
    readPids(pidFile);
    p.child.stdin!.end();
    await p.waitExit(10_000);
    const bytes = Buffer.byteLength(p.stderr);
    const warnings = p.stderr.split('\n').filter((l) => l.includes('non-JSON-RPC line on stdout'));
    console.log(`100k junk lines: ${bytes} B of stderr, ${warnings.length} warning lines`);
    expect(bytes).toBeLessThan(100_000);
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.length).toBeLessThan(200);
    expect(p.stderr).toMatch(/\[warn\] \[junk\] suppressed \d+ more non-JSON-RPC lines on stdout/);
    // Nothing but newlines as control characters; the escapes are visible instead.
    expect(p.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f\u202e]/);
    expect(warnings[0]).toContain('junk \\x1b[31mred\\x1b[0m \\x07bell \\x00nul \\r1 \\u202eevil');
  });

  it('skips a 100 MiB line without buffering it (RSS stays under 150 MB) and resyncs at its newline', async () => {
    const { p, pidFile } = start(['--unterminated-mib', '100']);
    const rss = process.platform === 'linux' ? sampleRss(p.pid, 100) : undefined;
    await p.initialize();
    await echo(p, 2, 'after the long line', 20_000);
    const peak = rss?.stop();
    readPids(pidFile);
    p.child.stdin!.end();
    await p.waitExit(10_000);
    console.log(`100 MiB line: RSS peak ${peak?.toFixed(0)} MiB`);
    expect(p.stderr).toMatch(
      /\[warn\] \[junk\] server 'junk' wrote a 104857600-byte message \(id unknown\), over the 20971520-byte limit; skipped/,
    );
    if (peak !== undefined) expect(peak).toBeLessThan(150);
  });

  it('caps upstream answers at twice --max-message-bytes: an oversize answer fails its call at once, a smaller one passes', async () => {
    const { p, pidFile } = start([], ['--max-message-bytes', '1000000']);
    await p.initialize();
    const t0 = Date.now();
    p.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'junk__big', arguments: { bytes: 2_000_000 } },
    });
    const big = await p.reply(2, 10_000);
    const ms = Date.now() - t0;
    expect(big.error?.message).toMatch(
      /server 'junk' answered with a 20000\d\d-byte message, over the 2000000-byte limit/,
    );
    expect(ms).toBeLessThan(5000);
    p.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'junk__big', arguments: { bytes: 1_900_000 } },
    });
    expect((await p.reply(3)).result.content[0].text).toHaveLength(1_900_000);
    await echo(p, 4, 'still fine');
    readPids(pidFile);
    p.child.stdin!.end();
    await p.waitExit(10_000);
  });
});
