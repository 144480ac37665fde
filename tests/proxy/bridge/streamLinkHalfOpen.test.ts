// When an agent's stdio proxy ends (stdin EOF, or SIGKILL), the bridge must
// close its end of that stream-link connection (no socket left in CLOSE-WAIT), and a bridge
// whose sessions have all ended must stop well within its graceful deadline. Real bridge,
// real stdio proxy (both the built CLI), real fixture server; sockets read from /proc/net/tcp.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupBridges, startBridge, waitFor } from '../../helpers/bridgeProcess.js';
import { CliProcess, cleanup } from '../../helpers/cliProcess.js';
import { fixtureEntry } from '../../helpers/proxyCli.js';

afterEach(async () => {
  await cleanup();
  await cleanupBridges();
});

/** TCP sockets whose local port is `port`, by state (hex as in /proc/net/tcp: 08 = CLOSE_WAIT). */
function socketStates(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const states: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'latin1');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4) continue;
      if (cols[1]!.endsWith(`:${hexPort}`)) states.push(cols[3]!);
    }
  }
  return states;
}

const closeWaits = (port: number) => socketStates(port).filter((s) => s === '08').length;

describe.skipIf(process.platform !== 'linux')('stream link: the bridge closes its end when a proxy ends', () => {
  it('leaves no CLOSE-WAIT socket after a proxy ends by EOF or SIGKILL, and then stops well within its deadline', async () => {
    const token = 'a-test-token-of-sufficient-length';
    // A graceful deadline below the bridge's 2 s socket-close step: a stop that waits for a
    // half-open socket shows up as "forcing exit".
    const b = await startBridge({
      config: { mcpServers: { fx: fixtureEntry('fx') } },
      token,
      args: ['--shutdown-timeout', '1800'],
    });
    const upstream = {
      type: 'bridge',
      url: `${b.url}/mcp/fx`,
      headers: { Authorization: 'Bearer ${MCP_BRIDGE_TOKEN}' },
    };
    const config = JSON.stringify({ mcpServers: { fx: upstream } });
    const env = { ...process.env, MCP_BRIDGE_TOKEN: token };

    const leftovers: number[] = [];
    for (const how of ['eof', 'sigkill', 'eof'] as const) {
      const p = new CliProcess(['--config', config, '--no-watchdog'], { env });
      await p.initialize();
      p.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fx__echo', arguments: { text: how } } });
      expect((await p.reply(2)).result.content[0].text).toBe(how);
      await b.waitServer('fx', (s) => s.sessions === 1, 5000, 'one session');
      if (how === 'eof') p.child.stdin!.end();
      else p.child.kill('SIGKILL');
      await p.waitExit(15_000);
      await b.waitServer('fx', (s) => s.sessions === 0, 5000, 'the session gone');
      // The bridge's end must follow within a moment; before the fix it stayed in CLOSE-WAIT.
      await waitFor(() => closeWaits(b.port) === 0, 3000, 'no CLOSE-WAIT socket').catch(() => undefined);
      leftovers.push(closeWaits(b.port));
    }
    expect(leftovers).toEqual([0, 0, 0]);

    const t0 = Date.now();
    b.child.kill('SIGTERM');
    expect(await b.waitExit(10_000)).toEqual({ code: 0, signal: null });
    const stopMs = Date.now() - t0;
    expect(b.stderr).not.toMatch(/forcing exit/);
    // A correctness bound, not a speed one: the deadline is 1.8 s; idle sessions add nothing.
    expect(stopMs).toBeLessThan(1800);
  }, 60_000);
});
