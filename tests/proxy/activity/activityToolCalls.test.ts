// What the activity log, its filters, the health figures and the traces say of a tool call,
// over a real bridge (its /activity and /status) with spans sent to an OTLP collector on
// loopback: a call through the aggregate's `call_tool` is the called tool's, on that tool's
// server, marked as having come through `call_tool`; a tool result with `isError: true` is a
// `tool-error`, apart from JSON-RPC errors, found by the outcome filter and counted as an
// error in the server's health, whether called directly or through `call_tool`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityPage, ActivityRecord } from '../../../src/shared/activity.js';
import {
  cleanupBridges,
  fixture,
  nodeEntry,
  startBridge,
  waitFor,
  type BridgeProcess,
} from '../../helpers/bridgeProcess.js';
import { SPAN_KIND, startCollector, type Collector, type ReceivedSpan } from '../../helpers/otlpCollector.js';
import { text } from '../../helpers/toolText.js';

/** `meta` answers its request's `_meta`; `fails` answers `isError: true`. */
const META_SERVER = fixture('metaEchoServer.mjs');
/** Batches leave at once, so the test waits on spans, not on the SDK's default 5 s delay. */
const FAST_BATCH = { OTEL_BSP_SCHEDULE_DELAY: '50' };
const traceparent = (trace: string) => `00-${trace}-${'b'.repeat(16)}-01`;
const THROUGH_OK = '1'.repeat(32);
const THROUGH_FAILS = '2'.repeat(32);
const DIRECT_FAILS = '3'.repeat(32);

const clients: Client[] = [];
let collector: Collector | undefined;

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await cleanupBridges();
  await collector?.close();
  collector = undefined;
});

async function client(b: BridgeProcess, path: string, name: string): Promise<Client> {
  const c = new Client({ name, version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(b.url + path), { requestInit: { headers: b.auth } }));
  clients.push(c);
  return c;
}

async function page(b: BridgeProcess, query: string): Promise<ActivityRecord[]> {
  const res = await b.fetch(`/activity${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as ActivityPage).records;
}

/** The SERVER span of the request that carried `trace`, once it and its CLIENT span arrived. */
function serverSpan(c: Collector, trace: string): Promise<ReceivedSpan> {
  return waitFor(
    () => {
      const spans = c.spans.filter((s) => s.traceId === trace);
      return spans.length >= 2 ? spans.find((s) => s.kind === SPAN_KIND.SERVER) : undefined;
    },
    20_000,
    `the spans of trace ${trace}`,
  );
}

describe('a tool call in the activity log, the health figures and the traces', () => {
  it("names the tool a call_tool ran and its server, and records a tool's isError result as tool-error", async () => {
    collector = await startCollector();
    const b = await startBridge({
      config: { toolExposure: 'search', mcpServers: { fx: nodeEntry(META_SERVER) } },
      env: { ...FAST_BATCH, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'bridge' },
    });
    const searching = await client(b, '/mcp', 'searching-agent');
    const direct = await client(b, '/mcp/fx', 'direct-agent');

    const ran = await searching.callTool({
      name: 'call_tool',
      arguments: { name: 'fx__meta', arguments: {} },
      _meta: { traceparent: traceparent(THROUGH_OK) },
    });
    expect(JSON.parse(text(ran))).toMatchObject({ traceparent: expect.any(String) });
    const failedThrough = await searching.callTool({
      name: 'call_tool',
      arguments: { name: 'fx__fails' },
      _meta: { traceparent: traceparent(THROUGH_FAILS) },
    });
    expect(failedThrough.isError).toBe(true);
    const failedDirect = await direct.callTool({
      name: 'fails',
      arguments: {},
      _meta: { traceparent: traceparent(DIRECT_FAILS) },
    });
    expect(failedDirect.isError).toBe(true);
    // A JSON-RPC error stays an `error`, apart from the tool errors (fx has no prompts).
    await expect(direct.getPrompt({ name: 'nosuch' })).rejects.toThrow();

    const calls = await waitFor(
      async () => {
        const rs = (await page(b, '?limit=500')).filter((r) => r.method === 'tools/call' || r.method === 'prompts/get');
        return rs.length >= 4 ? rs : undefined;
      },
      20_000,
      'the four calls in the activity log',
    );
    // Newest first. The call_tool ones: the tool that ran, on its server, through call_tool.
    expect(calls.map((r) => [r.client, r.server, r.name, r.via, r.outcome])).toEqual([
      ['direct-agent', 'fx', 'nosuch', undefined, 'error'],
      ['direct-agent', 'fx', 'fails', undefined, 'tool-error'],
      ['searching-agent', 'fx', 'fx__fails', 'call_tool', 'tool-error'],
      ['searching-agent', 'fx', 'fx__meta', 'call_tool', 'ok'],
    ]);
    // A tool error is a result, not a JSON-RPC error: no code to record.
    for (const r of calls.filter((x) => x.outcome === 'tool-error')) expect(r.error).toBeUndefined();
    expect(calls[0]!.error!.code).toBeLessThan(0);

    // The filters find them by the tool's name, by call_tool and by the outcome.
    expect((await page(b, '?text=fx__meta')).map((r) => [r.name, r.via])).toEqual([['fx__meta', 'call_tool']]);
    expect((await page(b, '?text=call_tool')).map((r) => r.name)).toEqual(['fx__fails', 'fx__meta']);
    expect((await page(b, '?server=fx&outcome=tool-error')).map((r) => [r.name, r.client])).toEqual([
      ['fails', 'direct-agent'],
      ['fx__fails', 'searching-agent'],
    ]);
    expect((await page(b, '?outcome=error')).map((r) => r.name)).toEqual(['nosuch']);

    // The health figures of fx count the two tool errors and the JSON-RPC one, nothing else.
    const health = (await b.status()).servers.find((s) => s.id === 'fx')!.health!;
    expect(health.errors).toBe(3);
    const fxRecords = (await page(b, '?server=fx&limit=500')).filter((r) => r.method !== 'ping');
    expect(health.calls).toBe(fxRecords.length);

    // The traces: the SERVER span of a call_tool is the called tool's, with its server and how it came.
    const throughOk = await serverSpan(collector, THROUGH_OK);
    expect(throughOk.name).toBe('tools/call fx__meta');
    expect(throughOk.attributes).toMatchObject({
      'gen_ai.tool.name': 'fx__meta',
      'qiming.via': 'call_tool',
      'qiming.server.id': 'fx',
      'qiming.outcome': 'ok',
    });
    expect(collector.spans.find((s) => s.traceId === THROUGH_OK && s.kind === SPAN_KIND.CLIENT)!.name).toBe(
      'tools/call meta',
    );
    const throughFails = await serverSpan(collector, THROUGH_FAILS);
    expect(throughFails.name).toBe('tools/call fx__fails');
    expect(throughFails.attributes).toMatchObject({
      'gen_ai.tool.name': 'fx__fails',
      'qiming.via': 'call_tool',
      'qiming.server.id': 'fx',
      'qiming.outcome': 'tool-error',
      'error.type': 'tool_error',
    });
    expect(throughFails.status.code).toBe(2);
    const directFails = await serverSpan(collector, DIRECT_FAILS);
    expect(directFails.name).toBe('tools/call fails');
    expect(directFails.attributes).toMatchObject({ 'qiming.outcome': 'tool-error', 'error.type': 'tool_error' });
    expect(directFails.attributes['qiming.via']).toBeUndefined();
  });
});
