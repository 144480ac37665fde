// A request body (or head) that never finishes is answered 408 and its
// connection closed after --body-timeout, instead of being held for Node's 300 s default;
// SSE streams, long calls and stream-link connections are never cut by it. Real bridge
// (built CLI), raw sockets.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamClientTransport } from '../../../src/proxy/upstream/streamClientTransport.js';
import { cleanupBridges, sleep, startBridge, tempDir, waitFor } from '../../helpers/bridgeProcess.js';
import { fixtureEntry, readState } from '../../helpers/proxyCli.js';

afterEach(cleanupBridges);

const MiB = 1024 * 1024;
/** A pause after a round's sockets closed, for the bridge to release their buffers before RSS is sampled. */
const RELEASE_PAUSE_MS = 300;

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Sends `head` and then `bodyBytes` of body, never the rest; resolves with what came back and when the socket closed. */
function stalledRequest(
  port: number,
  head: string,
  bodyBytes: number,
  waitMs: number,
): Promise<{ text: string; closedAfterMs?: number }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text });
    }, waitMs);
    socket.on('data', (c) => (text += c.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - t0 });
    });
    socket.write(head);
    if (bodyBytes > 0) socket.write(Buffer.alloc(bodyBytes, 0x20));
  });
}

describe('bridge: --body-timeout', () => {
  it('answers bodies and heads that never finish with 408 and closes them, and cuts no stream or long call', async () => {
    const token = 'a-test-token-of-sufficient-length';
    const state = join(tempDir(), 'state.jsonl');
    // A bound a loaded machine still meets with every byte a stalled body sends (all but its
    // last): the bridge then has read them all and its 408 arrives; a close while the client
    // is still sending resets the connection, and TCP drops the 408.
    const b = await startBridge({
      config: { mcpServers: { fx: fixtureEntry('fx', [], state) } },
      token,
      args: ['--body-timeout', '5000'],
    });
    const host = `127.0.0.1:${b.port}`;
    const postHead = (length: number) =>
      `POST /mcp/fx HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${length}\r\n\r\n`;

    // Long-lived things that must survive the deadline: an /events stream, a stream link, an 8 s call.
    let eventsClosed = false;
    const events = http.get(
      { host: '127.0.0.1', port: b.port, path: '/events', headers: { Authorization: `Bearer ${token}` }, agent: false },
      (res) => {
        res.resume();
        res.on('close', () => (eventsClosed = true));
      },
    );
    events.on('error', () => undefined);
    const link = new Client({ name: 'link', version: '1' });
    await link.connect(
      new StreamClientTransport(new URL(`${b.url}/mcp/fx`), { headers: { Authorization: `Bearer ${token}` } }),
    );
    const { client } = await b.client('/mcp/fx');
    const slow = client.callTool({ name: 'slow', arguments: { ms: 8000, steps: 1 } }, undefined, { timeout: 60_000 });
    // Running upstream, its request whole, before the stalled bodies take the test's time.
    await waitFor(() => readState(state).some((e) => e.event === 'slow-started'), 20_000, 'the slow call upstream');

    // Two rounds of 10 bodies of 9 MiB that never finish: each is answered 408 and closed, and
    // the second round reuses memory the first released (RSS grows by well under its 90 MiB).
    const rss: number[] = [rssMiB(b.pid)];
    for (let round = 0; round < 2; round++) {
      const stalled = Array.from({ length: 10 }, () => stalledRequest(b.port, postHead(9 * MiB), 9 * MiB - 1, 30_000));
      const headOnly = stalledRequest(b.port, `POST /mcp/fx HTTP/1.1\r\nHost: ${host}\r\n`, 0, 30_000);
      const results = await Promise.all(stalled);
      for (const r of results) {
        expect(r.text).toMatch(/^HTTP\/1\.1 408 /);
        expect(r.closedAfterMs).toBeDefined();
      }
      const head = await headOnly;
      expect(head.text).toMatch(/^HTTP\/1\.1 408 /);
      expect(head.closedAfterMs).toBeDefined();
      await sleep(RELEASE_PAUSE_MS);
      rss.push(rssMiB(b.pid));
      console.log(`round ${round}: closed after ${results.map((r) => r.closedAfterMs).join(', ')} ms`);
    }
    console.log(`bridge RSS (MiB): ${rss.map((x) => x.toFixed(0)).join(' -> ')}`);
    expect(rss[2]! - rss[1]!).toBeLessThan(80);

    expect((await slow).content).toEqual([{ type: 'text', text: 'slept 8000' }]);
    expect((await link.callTool({ name: 'echo', arguments: { text: 'still linked' } })).content).toEqual([
      { type: 'text', text: 'still linked' },
    ]);
    expect(eventsClosed).toBe(false);
    events.destroy();
    await link.close();
  }, 90_000);
});
