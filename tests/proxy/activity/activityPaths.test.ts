// The activity log through every path a request takes: the bridge's /mcp and /mcp/<id> (real
// bridge process, SDK clients), and the chain (a stdio proxy, the agent's, whose upstream is
// the bridge over the stream link; it records its own stdio aggregation into its JSONL file).
// Each path gets a good, a slow one with progress, a failing, a timed-out, a cancelled call and
// one the approval policy denies.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityPage, ActivityRecord } from '../../../src/shared/activity.js';
import { cleanupBridges, startBridge, tempDir, waitFor, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { connectProxy, fixtureEntry, type ProxyHandle } from '../../helpers/proxyCli.js';

const SECRET_ARG = 'argument-value-never-logged-7f3a';
const TOKEN = 'a-test-token-of-sufficient-length';
let proxy: ProxyHandle | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await proxy?.close();
  proxy = undefined;
  await cleanupBridges();
});

async function httpClient(b: BridgeProcess, path: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(b.url + path), { requestInit: { headers: b.auth } }));
  clients.push(client);
  return client;
}

async function page(b: BridgeProcess, query = ''): Promise<ActivityPage> {
  const res = await b.fetch(`/activity${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as ActivityPage;
}

/** The calls a client made, by what they did (tools by name); waits until all five are there. */
async function callsOf(
  read: () => Promise<ActivityRecord[]>,
  client: string,
  tool: (n: string) => string,
  want = ['echo', 'slow-progress', 'slow-timeout', 'slow-cancel', 'nosuch', 'add_tool-denied'],
) {
  return waitFor(
    async () => {
      const mine = (await read()).filter((r) => r.client === client);
      const by = (label: string) =>
        mine.find((r) => {
          if (label === 'nosuch') return r.method === 'prompts/get';
          if (r.method !== 'tools/call' || r.name !== tool(label.split('-')[0]!)) return false;
          if (label === 'echo') return true;
          const kind = {
            'slow-progress': 'ok',
            'slow-timeout': 'timeout',
            'slow-cancel': 'cancelled',
            'add_tool-denied': 'denied',
          }[label];
          return r.outcome === kind;
        });
      const found = Object.fromEntries(want.map((w) => [w, by(w)]));
      return Object.values(found).every(Boolean) ? (found as Record<string, ActivityRecord>) : undefined;
    },
    20_000,
    `the calls ${want.join(', ')} of ${client} in the activity log`,
  );
}

/** A good, a slow (progress), a timed-out, a cancelled and a failing call. */
async function fiveCalls(client: Client, tool: (n: string) => string): Promise<void> {
  await client.callTool({ name: tool('echo'), arguments: { text: SECRET_ARG } });
  await client.callTool({ name: tool('slow'), arguments: { ms: 300, steps: 3 } }, undefined, {
    onprogress: () => undefined,
    resetTimeoutOnProgress: true,
  });
  await expect(client.callTool({ name: tool('slow'), arguments: { ms: 60_000, steps: 1 } })).rejects.toThrow(
    /timed out/,
  );
  const ac = new AbortController();
  const cancelled = client.callTool({ name: tool('slow'), arguments: { ms: 60_000, steps: 2 } }, undefined, {
    signal: ac.signal,
  });
  setTimeout(() => ac.abort('enough'), 300);
  await expect(cancelled).rejects.toThrow();
  await expect(client.getPrompt({ name: 'nosuch' })).rejects.toThrow();
  // Refused by the entry's `"approval": {"add_tool": "deny"}`: a tool result that says so.
  const refused = await client.callTool({ name: tool('add_tool'), arguments: { id: 'x' } });
  expect(refused.isError).toBe(true);
  expect((refused.content as { text: string }[])[0]!.text).toMatch(/denied by the approval policy/);
}

function expectFive(calls: Record<string, ActivityRecord>, server: string | undefined): void {
  expect(calls.echo).toMatchObject({ outcome: 'ok', progress: 0 });
  if (server) expect(calls.echo!.server).toBe(server);
  expect(calls.echo!.durationMs).toBeGreaterThanOrEqual(0);
  expect(calls['slow-progress']).toMatchObject({ outcome: 'ok', progress: 3 });
  expect(calls['slow-progress']!.durationMs).toBeGreaterThanOrEqual(250);
  expect(calls['slow-timeout']).toMatchObject({ outcome: 'timeout', error: { code: -32001 } });
  expect(calls['slow-cancel']).toMatchObject({ outcome: 'cancelled' });
  expect(calls['slow-cancel']!.error).toBeUndefined();
  if (calls.nosuch) {
    expect(calls.nosuch.outcome).toBe('error');
    expect(calls.nosuch.error!.code).toBeLessThan(0);
  }
  const denied = calls['add_tool-denied'];
  if (denied) {
    expect(denied).toMatchObject({ outcome: 'denied', error: { code: -32602 } });
    expect(denied.error!.message).toMatch(/denied by the approval policy/);
  }
  for (const r of Object.values(calls)) expect(r.captured).toBeUndefined();
}

describe('the activity log', () => {
  it('records each call on /mcp, /mcp/<id> and through the chain, never an argument value', async () => {
    const dataDir = tempDir();
    // The timeout of `slow` is short on every entry; `captured` captures its values.
    const short = { toolTimeouts: { slow: 1_500 }, approval: { add_tool: 'deny' } };
    const b = await startBridge({
      config: {
        mcpServers: {
          alpha: { ...fixtureEntry('alpha'), ...short },
          beta: { ...fixtureEntry('beta'), ...short },
          captured: { ...fixtureEntry('captured'), capture: true },
        },
      },
      token: TOKEN,
    });

    const aggregate = await httpClient(b, '/mcp', 'aggregate-client');
    await fiveCalls(aggregate, (n) => `alpha__${n}`);
    const single = await httpClient(b, '/mcp/beta', 'single-client');
    await fiveCalls(single, (n) => n);

    // The chain: the agent's stdio proxy, its upstream the bridge's /mcp/alpha over the stream link.
    const link = {
      type: 'bridge',
      url: `${b.url}/mcp/alpha`,
      headers: { Authorization: 'Bearer ${MCP_BRIDGE_TOKEN}' },
    };
    proxy = await connectProxy(
      [
        '--config',
        JSON.stringify({ activity: 'file', mcpServers: { linked: { ...link, toolTimeouts: { slow: 1_500 } } } }),
        '--no-watchdog',
      ],
      {},
      { MCP_BRIDGE_TOKEN: TOKEN, QIMING_DATA_DIR: dataDir },
    );
    await fiveCalls(proxy.client, (n) => `linked__${n}`);

    const all = async () => (await page(b, '?limit=500')).records;
    expectFive(await callsOf(all, 'aggregate-client', (n) => `alpha__${n}`), 'alpha');
    expectFive(await callsOf(all, 'single-client', (n) => n), 'beta');
    // At the bridge the chain's calls come in on /mcp/alpha under the stdio proxy's client name.
    const linked = (await all()).filter((r) => r.server === 'alpha' && r.client !== 'aggregate-client');
    expect(new Set(linked.map((r) => r.client)).size).toBe(1);
    // (Its unknown prompt is answered by the stdio proxy itself: it never reaches the bridge.)
    const viaLink = ['echo', 'slow-progress', 'slow-timeout', 'slow-cancel', 'add_tool-denied'];
    expectFive(await callsOf(all, linked[0]!.client!, (n) => n, viaLink), 'alpha');

    // The stdio aggregation (the agent's proxy) wrote its own records, one JSON line each.
    const file = join(dataDir, 'activity.jsonl');
    const fromFile = async () =>
      existsSync(file)
        ? readFileSync(file, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as ActivityRecord)
        : [];
    const inProxy = ['echo', 'slow-progress', 'slow-timeout', 'slow-cancel', 'nosuch'];
    expectFive(await callsOf(fromFile, 'test-client', (n) => `linked__${n}`, inProxy), 'linked');
    // The bridge applies the policy to the chain's calls (its record: denied); the agent's proxy relays
    // the refusal, a tool result with isError, and records the call as a tool error.
    const refusedHere = (await fromFile()).find((r) => r.name === 'linked__add_tool')!;
    expect(refusedHere.outcome).toBe('tool-error');
    expect(refusedHere.error).toBeUndefined();
    const proxyLines = readFileSync(file, 'utf8');
    expect(proxyLines).not.toContain(SECRET_ARG);

    // No argument value anywhere in the bridge's log.
    const text = JSON.stringify(await all());
    expect(text).not.toContain(SECRET_ARG);
    // Sizes as the transports framed them: a streamable HTTP POST's body and its JSON or SSE answer, the stream link's lines.
    const bridgeRecords = await all();
    for (const client of ['aggregate-client', 'single-client', linked[0]!.client!]) {
      const echo = bridgeRecords.find((r) => r.client === client && r.name?.endsWith('echo'))!;
      expect(echo.bytesIn, client).toBeGreaterThan(SECRET_ARG.length);
      expect(echo.bytesOut, client).toBeGreaterThan(SECRET_ARG.length);
      // The progress of the slow call turned its answer into SSE: still measured.
      const slow = bridgeRecords.find((r) => r.client === client && r.name?.endsWith('slow') && r.progress === 3)!;
      expect(slow.bytesOut, client).toBeGreaterThan(0);
    }
    const stdioEcho = (await fromFile()).find((r) => r.name === 'linked__echo')!;
    expect(stdioEcho.bytesIn).toBeGreaterThan(SECRET_ARG.length);
    expect(stdioEcho.bytesOut).toBeGreaterThan(SECRET_ARG.length);

    // Capture on: the captured server's arguments and result, masked and cut.
    await aggregate.callTool({ name: 'captured__echo', arguments: { text: SECRET_ARG } });
    await aggregate.callTool({ name: 'captured__blob', arguments: { bytes: 10_000 } });
    const captured = await waitFor(
      async () => {
        const rs = (await page(b, '?server=captured')).records;
        return rs.length >= 2 ? rs : undefined;
      },
      10_000,
      'the captured calls',
    );
    const echo = captured.find((r) => r.name === 'captured__echo')!;
    expect(echo.captured!.params).toContain(SECRET_ARG);
    expect(echo.captured!.result).toContain(SECRET_ARG);
    const blob = captured.find((r) => r.name === 'captured__blob')!;
    expect(blob.captured!.result!.length).toBeLessThan(2_200);
    expect(blob.captured!.result).toMatch(/… \(\d+ characters\)$/);

    // Health figures in /status: calls, errors (timeouts and failures, not cancels), latency, last call.
    const status = await b.status();
    const beta = status.servers.find((s) => s.id === 'beta')!;
    expect(beta.health).toMatchObject({ windowMs: 300_000 });
    expect(beta.health!.calls).toBeGreaterThanOrEqual(5);
    expect(beta.health!.errors).toBeGreaterThanOrEqual(2);
    expect(beta.health!.p95Ms!).toBeGreaterThanOrEqual(beta.health!.p50Ms!);
    expect(Date.parse(beta.health!.lastCallAt!)).toBeGreaterThan(0);
  });
});
