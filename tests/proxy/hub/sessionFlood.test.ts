// One session's burst of notifications to a shared server must not delay
// another session's calls for seconds, nor print a raw MaxListenersExceededWarning. Real
// bridge (built CLI), a server that spends 0.1 ms per notification behind /mcp/fx, shared by
// both sessions; session A is a raw stream-link socket, session B an SDK client over the
// stream link.
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamClientTransport } from '../../../src/proxy/upstream/streamClientTransport.js';
import { cleanupBridges, fixture, nodeEntry, sleep, startBridge, waitFor } from '../../helpers/bridgeProcess.js';

afterEach(cleanupBridges);

/**
 * The bound on session B's call. The whole burst is at least 5 s of the server's time (0.1 ms
 * a notification, on a wall clock a loaded machine cannot shorten): a call queued behind it
 * waits out the seconds left of it. A prompt call has a few hundred notifications ahead of
 * it, tens of ms, a few hundred on a loaded machine.
 */
const PROMPT_CALL_MS = 2500;
/** How long the test waits for a late MaxListenersExceededWarning line on the bridge's stderr. */
const LATE_WARNING_MS = 500;

describe('bridge: one session flooding a shared server', () => {
  it("50k notifications from one session leave another session's next call prompt, with no MaxListenersExceededWarning", async () => {
    const token = 'a-test-token-of-sufficient-length';
    // A server that spends 0.1 ms per notification: 50k of them are 5 s of its time.
    const b = await startBridge({
      config: { mcpServers: { fx: nodeEntry(fixture('busyNotificationServer.mjs'), ['--busy-us', '100']) } },
      token,
    });
    const B = new Client({ name: 'session-b', version: '1' });
    await B.connect(
      new StreamClientTransport(new URL(`${b.url}/mcp/fx`), { headers: { Authorization: `Bearer ${token}` } }),
    );
    expect((await B.callTool({ name: 'echo', arguments: { text: 'warm' } })).content).toEqual([
      { type: 'text', text: 'warm' },
    ]);

    // Session A: a raw stream link; initialize, then 50k notifications in one write.
    const a = net.connect(b.port, '127.0.0.1');
    let fromA = '';
    a.on('data', (c) => (fromA += c.toString('utf8')));
    a.on('error', () => undefined);
    await new Promise<void>((r) => a.once('connect', () => r()));
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'session-a', version: '1' } },
    };
    a.write(
      `GET /mcp/fx HTTP/1.1\r\nHost: 127.0.0.1:${b.port}\r\nAuthorization: Bearer ${token}\r\nConnection: Upgrade\r\nUpgrade: mcp-stream\r\n\r\n` +
        `${JSON.stringify(init)}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
    );
    await waitFor(() => fromA.includes('"id":1'), 5000, "A's initialize answer");
    const burst = Array.from(
      { length: 50_000 },
      (_, i) =>
        `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/flood', params: { i, pad: 'x'.repeat(40) } })}\n`,
    ).join('');
    // A ping behind the burst, answered by the bridge itself: once it is back, the bridge has
    // read (and forwarded or refused) every notification before it.
    a.write(`${burst}${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n`);
    await waitFor(() => fromA.includes('"id":2'), 20_000, "A's ping behind the burst");

    const t0 = Date.now();
    expect(
      (await B.callTool({ name: 'echo', arguments: { text: 'after the flood' } }, undefined, { timeout: 20_000 }))
        .content,
    ).toEqual([{ type: 'text', text: 'after the flood' }]);
    const latencyMs = Date.now() - t0;
    console.log(`session B's call during A's burst of 50k notifications: ${latencyMs} ms`);
    // A correctness bound (the call must not wait behind the whole burst), generous for a loaded machine.
    expect(latencyMs).toBeLessThan(PROMPT_CALL_MS);
    await sleep(LATE_WARNING_MS);
    expect(b.stderr).not.toMatch(/MaxListenersExceededWarning/);
    // The burst was bounded by dropping, and said so once (rate-limited), not once per message.
    const warns = b.stderr.split('\n').filter((l) => /queued toward server "fx"/.test(l));
    expect(warns.length).toBeGreaterThanOrEqual(1);
    expect(warns.length).toBeLessThanOrEqual(3);
    a.destroy();
    await B.close();
  }, 40_000);
});
