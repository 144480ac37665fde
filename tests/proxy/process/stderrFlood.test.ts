// A stdio server that floods its stderr must not grow the proxy without
// bound, whether or not anyone reads the proxy's own stderr: logged server lines are
// rate-limited per server (with a "suppressed" summary) and cut when long, and the proxy
// keeps answering meanwhile. The logger's bounded stderr queue is tested in logSinks.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CliProcess, cleanup, configJson, readPids, sleep, tempDir, waitFor } from '../../helpers/cliProcess.js';
import { FIXTURES } from '../../helpers/paths.js';
import { rssMiB, sampleRss } from '../../helpers/procRss.js';

afterEach(cleanup);

const FLOOD = join(FIXTURES, 'floodServer.mjs');
const FLOOD_MS = 8000;
/**
 * The most the proxy may grow over its RSS once initialized while the flood lasts. Bounded
 * buffers grow it by about 50 MiB under Node 20 and 90 under Node 24, whose V8 collects later;
 * an unbounded one grows by hundreds within the flood.
 */
const GROWTH_LIMIT_MIB = 150;
/**
 * The bound on the slowest ping during the flood: a proxy that answers promptly does in tens
 * of ms, a few hundred on a loaded machine; one whose input waits behind its stderr does not
 * answer within the 5 s reply bound.
 */
const PROMPT_PING_MS = 2500;

function start(env: NodeJS.ProcessEnv = {}): { p: CliProcess; pidFile: string } {
  const pidFile = join(tempDir(), 'pids.jsonl');
  const config = configJson({ flood: { command: process.execPath, args: [FLOOD, pidFile, '--stderr-flood'] } });
  const p = new CliProcess(['--config', config], { env: { ...process.env, MCP_PROXY_LOG_LEVEL: 'info', ...env } });
  // The helper collects stderr into a string; here it is either never read or only counted.
  p.child.stderr!.removeAllListeners('data');
  return { p, pidFile };
}

/** Floods for FLOOD_MS, pinging every 500 ms; returns the RSS growth over the initialized proxy's and the slowest ping. */
async function floodWhilePinging(p: CliProcess): Promise<{ peak: number; slowestPingMs: number }> {
  await p.initialize();
  const base = rssMiB(p.pid) ?? 0;
  const rss = sampleRss(p.pid);
  let slowest = 0;
  const until = Date.now() + FLOOD_MS;
  for (let id = 100; Date.now() < until && rss.peak - base < 4 * GROWTH_LIMIT_MIB; id++) {
    const t0 = Date.now();
    p.send({ jsonrpc: '2.0', id, method: 'ping' });
    await p.reply(id, 5000);
    slowest = Math.max(slowest, Date.now() - t0);
    await sleep(500);
  }
  p.send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'flood__echo', arguments: { text: 'still here' } },
  });
  expect((await p.reply(2, 5000)).result.content[0].text).toBe('still here');
  return { peak: rss.stop() - base, slowestPingMs: slowest };
}

describe.skipIf(process.platform !== 'linux')('stderr flood from a stdio server', () => {
  it('keeps the proxy within 150 MB of its start and answering when nobody reads its stderr', async () => {
    const { p, pidFile } = start();
    p.child.stderr!.pause();
    const { peak, slowestPingMs } = await floodWhilePinging(p);
    readPids(pidFile);
    console.log(`stderr unread: RSS growth ${peak.toFixed(0)} MiB, slowest ping ${slowestPingMs} ms`);
    // Reading again works: what is queued arrives, up to the latest lines.
    let seen = '';
    p.child.stderr!.on('data', (d: Buffer) => {
      if (seen.length < 1_000_000) seen += d.toString('utf8');
    });
    p.child.stderr!.resume();
    await waitFor(() => seen.includes('[info] [flood] flood line'), 5000, 'queued stderr lines');
    p.child.stdin!.end();
    await p.waitExit(10_000);
    expect(peak).toBeLessThan(GROWTH_LIMIT_MIB);
    expect(slowestPingMs).toBeLessThan(PROMPT_PING_MS);
  });

  it('rate-limits and cuts the logged lines when stderr is read and a log file is set (bounded RSS, file and stderr)', async () => {
    const logFile = join(tempDir(), 'flood.log');
    const { p, pidFile } = start({ MCP_PROXY_LOG_FILE: logFile });
    let stderrBytes = 0;
    let head = '';
    p.child.stderr!.on('data', (d: Buffer) => {
      stderrBytes += d.length;
      if (head.length < 2_000_000) head += d.toString('utf8');
    });
    const { peak, slowestPingMs } = await floodWhilePinging(p);
    readPids(pidFile);
    p.child.stdin!.end();
    await p.waitExit(10_000);
    const fileBytes = statSync(logFile).size;
    console.log(
      `stderr read: RSS growth ${peak.toFixed(0)} MiB, slowest ping ${slowestPingMs} ms, stderr ${stderrBytes} B, log file ${fileBytes} B`,
    );
    expect(peak).toBeLessThan(GROWTH_LIMIT_MIB);
    expect(slowestPingMs).toBeLessThan(PROMPT_PING_MS);
    // Rate-limited: well under a megabyte per second of flooding, on both surfaces.
    expect(stderrBytes).toBeLessThan(4 * 1024 * 1024);
    expect(fileBytes).toBeLessThan(4 * 1024 * 1024);
    const text = readFileSync(logFile, 'utf8');
    expect(text).toMatch(/\[warn\] \[flood\] suppressed \d+ stderr lines/);
    // Long lines are cut with a marker, never logged whole (200 KB each in the fixture).
    expect(text).toMatch(/long line \d+ L+… \[cut: line longer than 2000 characters\]/);
    expect(Math.max(...text.split('\n').map((l) => l.length))).toBeLessThan(5000);
    expect(head).toContain('flood line');
  });
});
