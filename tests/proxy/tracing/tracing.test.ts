// OpenTelemetry traces of the requests the runtime handles, received by an OTLP/HTTP collector
// on loopback (tests/helpers/otlpCollector.ts): the MCP semantic conventions' names and
// attributes on the stdio aggregation's SERVER and CLIENT spans, the client's `traceparent`
// in `params._meta` continued to the server, the requests to a server of a call that takes
// input rounds (held for a 2026 client, re-issued for a 2025 one), one trace id through the
// app's chain (the agent's stdio proxy -> the bridge's stream link -> the server), nothing traced or changed with
// tracing off, and a stop bounded when the collector is away or never answers.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ActivityPage } from '../../../src/shared/activity.js';
import { cleanupBridges, fixture, nodeEntry, startBridge, waitFor } from '../../helpers/bridgeProcess.js';
import { connectProxy, waitNoProcess, type ProxyHandle } from '../../helpers/proxyCli.js';
import {
  closedPortUrl,
  SPAN_KIND,
  startCollector,
  type Collector,
  type ReceivedSpan,
} from '../../helpers/otlpCollector.js';
import { text } from '../../helpers/toolText.js';
import { FIXTURES } from '../../helpers/paths.js';
import { cleanup as cleanupCli, runCli } from '../../helpers/cliProcess.js';
import { closeModernClients, envelope, proxyArgs, RawLines } from '../../helpers/modernClient.js';
import { modernEntry } from '../../helpers/modernFixture.js';

const META_SERVER = fixture('metaEchoServer.mjs');
const ASKING_SERVER = fixture('askingServer.mjs');
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE}-${PARENT}-01`;
const TRACESTATE = 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE';
/** Batches leave at once, so a test waits on spans, not on the SDK's default 5 s delay. */
const FAST_BATCH = { OTEL_BSP_SCHEDULE_DELAY: '50' };

let proxy: ProxyHandle | undefined;
const collectors: Collector[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await closeModernClients();
  await proxy?.close();
  proxy = undefined;
  await cleanupBridges();
  await cleanupCli();
  for (const c of collectors.splice(0)) await c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function collector(opts?: { hang?: boolean }): Promise<Collector> {
  const c = await startCollector(opts);
  collectors.push(c);
  return c;
}

const config = (servers: Record<string, unknown>, extra: Record<string, unknown> = {}) => [
  '--config',
  JSON.stringify({ ...extra, mcpServers: servers }),
  '--no-watchdog',
];

/** The `_meta` the fixture server received with a `meta` call, as it answered it. */
async function metaSeen(
  p: ProxyHandle,
  tool: string,
  meta?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const res = await p.client.callTool({ name: tool, arguments: {}, ...(meta ? { _meta: meta } : {}) });
  return JSON.parse(text(res)) as Record<string, unknown>;
}

/** The spans of `traceId` once `n` of them arrived. */
function spansOf(c: Collector, traceId: string, n: number): Promise<ReceivedSpan[]> {
  return waitFor(
    () => {
      const s = c.spans.filter((x) => x.traceId === traceId);
      return s.length >= n ? s : undefined;
    },
    20_000,
    `${n} spans of trace ${traceId} at the collector`,
  );
}

const one = (spans: ReceivedSpan[], name: string, kind: number, service?: string) => {
  const s = spans.filter((x) => x.name === name && x.kind === kind && (service === undefined || x.service === service));
  expect(s, `one span "${name}" of kind ${kind}${service ? ` from ${service}` : ''}`).toHaveLength(1);
  return s[0]!;
};

const spanIdOf = (traceparent: unknown) => String(traceparent).split('-')[2];

describe('traces of the stdio aggregation', () => {
  it("names a tools/call's SERVER and CLIENT spans and their attributes as the MCP conventions do, continuing the client's trace to the server", async () => {
    const c = await collector();
    proxy = await connectProxy(
      config({ fx: nodeEntry(META_SERVER) }),
      {},
      {
        ...FAST_BATCH,
        OTEL_EXPORTER_OTLP_ENDPOINT: c.url,
        OTEL_SERVICE_NAME: 'stdio-under-test',
      },
    );
    const seen = await metaSeen(proxy, 'fx__meta', { traceparent: TRACEPARENT, tracestate: TRACESTATE });
    // The server got the trace, under the runtime's CLIENT span, its tracestate kept.
    expect(seen.traceparent).toMatch(new RegExp(`^00-${TRACE}-[\\da-f]{16}-01$`));
    expect(seen.tracestate).toBe(TRACESTATE);

    const spans = await spansOf(c, TRACE, 2);
    const server = one(spans, 'tools/call fx__meta', SPAN_KIND.SERVER);
    const client = one(spans, 'tools/call meta', SPAN_KIND.CLIENT);
    expect(server.parentSpanId).toBe(PARENT);
    expect(client.parentSpanId).toBe(server.spanId);
    expect(client.spanId).toBe(spanIdOf(seen.traceparent));
    expect(server.service).toBe('stdio-under-test');
    expect(server.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'fx__meta',
      'gen_ai.operation.name': 'execute_tool',
      'network.transport': 'pipe',
      'qiming.server.id': 'fx',
      'qiming.outcome': 'ok',
    });
    expect(server.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(server.attributes['mcp.protocol.version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(client.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'meta',
      'gen_ai.operation.name': 'execute_tool',
      'network.transport': 'pipe',
    });
    expect(client.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(client.attributes['mcp.protocol.version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const s of [server, client]) {
      expect(s.attributes['error.type']).toBeUndefined();
      expect(s.status.code ?? 0).not.toBe(2);
    }

    // A call without a trace starts one; the server still gets its context.
    const fresh = await metaSeen(proxy, 'fx__meta');
    const freshTrace = String(fresh.traceparent).split('-')[1]!;
    expect(freshTrace).toMatch(/^[\da-f]{32}$/);
    expect(freshTrace).not.toBe(TRACE);
    const root = one(await spansOf(c, freshTrace, 2), 'tools/call fx__meta', SPAN_KIND.SERVER);
    expect(root.parentSpanId).toBeUndefined();

    // A tool's own failure and a JSON-RPC error: error.type, the code, the span status.
    const failed = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    await proxy.client.callTool({ name: 'fx__fails', arguments: {}, _meta: { traceparent: failed } });
    const failedSpans = await spansOf(c, 'a'.repeat(32), 2);
    for (const s of failedSpans) {
      expect(s.attributes['error.type']).toBe('tool_error');
      expect(s.status.code).toBe(2);
    }
    const unknown = `00-${'c'.repeat(32)}-${'d'.repeat(16)}-01`;
    await expect(
      proxy.client.callTool({ name: 'fx__nosuch', arguments: {}, _meta: { traceparent: unknown } }),
    ).rejects.toThrow(/Unknown tool/);
    const [refused] = await spansOf(c, 'c'.repeat(32), 1);
    expect(refused).toMatchObject({ name: 'tools/call fx__nosuch', kind: SPAN_KIND.SERVER });
    expect(refused!.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(refused!.status).toMatchObject({ code: 2, message: 'Unknown tool: fx__nosuch' });
  });
});

describe('traces of calls that take input rounds', () => {
  it("a 2026 client's call held across its rounds to a 2025 server: one CLIENT span for the server's one request", async () => {
    const c = await collector();
    const entry = { ...nodeEntry(ASKING_SERVER), clientCapabilities: { elicitation: true } };
    const raw = new RawLines(process.execPath, proxyArgs({ as: entry }), {
      ...process.env,
      ...FAST_BATCH,
      OTEL_EXPORTER_OTLP_ENDPOINT: c.url,
    });
    const meta = { ...envelope({ elicitation: {} }), traceparent: TRACEPARENT };
    const call = (extra: Record<string, unknown> = {}) =>
      raw.request('tools/call', { name: 'as__confirm', arguments: { what: 'deploy' }, _meta: meta, ...extra });
    const accept = (asked: Record<string, any>) => ({
      requestState: asked.result.requestState,
      inputResponses: Object.fromEntries(
        Object.keys(asked.result.inputRequests).map((k) => [k, { action: 'accept', content: { ok: true } }]),
      ),
    });
    const first = await call();
    expect(first.result.resultType).toBe('input_required');
    const second = await call(accept(first));
    expect(second.result.resultType).toBe('input_required');
    const done = await call(accept(second));
    expect(done.result.content[0].text).toBe('deploy: first=true second=true');
    const seen = JSON.parse(
      (await raw.request('tools/call', { name: 'as__outcome', arguments: {}, _meta: envelope() })).result.content[0]
        .text,
    ) as { traceparent?: string };

    // Three client requests (three SERVER spans), one server request under the first of them.
    const spans = await spansOf(c, TRACE, 4);
    const servers = spans.filter((x) => x.name === 'tools/call as__confirm' && x.kind === SPAN_KIND.SERVER);
    expect(servers).toHaveLength(3);
    for (const s of servers) expect(s.parentSpanId).toBe(PARENT);
    const client = one(spans, 'tools/call confirm', SPAN_KIND.CLIENT);
    const firstServer = servers.find((s) => s.attributes['jsonrpc.request.id'] === String(first.id))!;
    expect(client.parentSpanId).toBe(firstServer.spanId);
    expect(client.attributes).toMatchObject({ 'qiming.server.id': 'as', 'gen_ai.tool.name': 'confirm' });
    expect(client.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(client.status.code ?? 0).not.toBe(2);
    // The server's request carried the CLIENT span's context.
    expect(spanIdOf(seen.traceparent)).toBe(client.spanId);
    expect(seen.traceparent).toMatch(new RegExp(`^00-${TRACE}-`));
  });

  it("a 2025 client's call to a 2026 server re-issued per round: one CLIENT span per request to the server", async () => {
    const c = await collector();
    const config = { mcpServers: { m: modernEntry('m', { clientCapabilities: { elicitation: true } }) } };
    proxy = await connectProxy(
      ['--config', JSON.stringify(config), '--no-watchdog'],
      { elicitation: {} },
      { ...FAST_BATCH, OTEL_EXPORTER_OTLP_ENDPOINT: c.url },
    );
    proxy.client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { ok: true } }));
    const res = await proxy.client.callTool({
      name: 'm__confirm',
      arguments: { what: 'deploy' },
      _meta: { traceparent: TRACEPARENT },
    });
    expect(text(res)).toBe('deploy: first=true second=true');

    // The server answers input_required twice, then its result: three requests under the client's one.
    const spans = await spansOf(c, TRACE, 4);
    const server = one(spans, 'tools/call m__confirm', SPAN_KIND.SERVER);
    const rounds = spans.filter((x) => x.name === 'tools/call confirm' && x.kind === SPAN_KIND.CLIENT);
    expect(rounds).toHaveLength(3);
    for (const r of rounds) expect(r.parentSpanId).toBe(server.spanId);
    expect(new Set(rounds.map((r) => r.spanId)).size).toBe(3);
    expect(new Set(rounds.map((r) => r.attributes['jsonrpc.request.id'])).size).toBe(3);
  });
});

describe('the config\'s "tracing"', () => {
  it('turns tracing on with its endpoint, and a bad one is a usage error that says which key', async () => {
    const c = await collector();
    proxy = await connectProxy(
      config({ fx: nodeEntry(META_SERVER) }, { tracing: { endpoint: `${c.url}/` } }),
      {},
      FAST_BATCH,
    );
    await metaSeen(proxy, 'fx__meta', { traceparent: TRACEPARENT });
    one(await spansOf(c, TRACE, 2), 'tools/call fx__meta', SPAN_KIND.SERVER);

    const bad = await runCli(config({ fx: nodeEntry(META_SERVER) }, { tracing: { endpoint: 'collector:4318' } }));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('tracing.endpoint must be an http(s) URL');
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("traces through the app's chain", () => {
  it('keeps one trace id from the client through the agent proxy and the bridge to the server', async () => {
    const c = await collector();
    const b = await startBridge({
      config: { mcpServers: { fx: nodeEntry(META_SERVER) } },
      env: { ...FAST_BATCH, OTEL_EXPORTER_OTLP_ENDPOINT: c.url, OTEL_SERVICE_NAME: 'bridge' },
    });
    const link = { type: 'bridge', url: `${b.url}/mcp/fx`, headers: b.auth };
    proxy = await connectProxy(
      config({ linked: link }),
      {},
      {
        ...FAST_BATCH,
        OTEL_EXPORTER_OTLP_ENDPOINT: c.url,
        OTEL_SERVICE_NAME: 'agent-proxy',
      },
    );
    const seen = await metaSeen(proxy, 'linked__meta', { traceparent: TRACEPARENT });

    const spans = await spansOf(c, TRACE, 4);
    const agentIn = one(spans, 'tools/call linked__meta', SPAN_KIND.SERVER, 'agent-proxy');
    const agentOut = one(spans, 'tools/call meta', SPAN_KIND.CLIENT, 'agent-proxy');
    const bridgeIn = one(spans, 'tools/call meta', SPAN_KIND.SERVER, 'bridge');
    const bridgeOut = one(spans, 'tools/call meta', SPAN_KIND.CLIENT, 'bridge');
    expect(agentIn.parentSpanId).toBe(PARENT);
    expect(agentOut.parentSpanId).toBe(agentIn.spanId);
    expect(bridgeIn.parentSpanId).toBe(agentOut.spanId);
    expect(bridgeOut.parentSpanId).toBe(bridgeIn.spanId);
    expect(spanIdOf(seen.traceparent)).toBe(bridgeOut.spanId);
    // The agent's proxy calls the bridge over TCP; the bridge its stdio server over a pipe.
    expect(agentOut.attributes).toMatchObject({
      'network.transport': 'tcp',
      'server.address': '127.0.0.1',
      'server.port': b.port,
      'qiming.server.id': 'linked',
    });
    expect(bridgeIn.attributes).toMatchObject({ 'network.transport': 'tcp', 'gen_ai.tool.name': 'meta' });
    expect(bridgeOut.attributes).toMatchObject({ 'network.transport': 'pipe', 'qiming.server.id': 'fx' });

    // The bridge's activity log, on by default, still records the traced call.
    const page = (await (await b.fetch('/activity?server=fx')).json()) as ActivityPage;
    expect(page.records.some((r) => r.name === 'meta' && r.outcome === 'ok')).toBe(true);
  });
});

describe('tracing off', () => {
  it('loads no tracing code and passes _meta as the client sent it', async () => {
    const loadedDir = mkdtempSync(join(tmpdir(), 'qiming-loaded-'));
    dirs.push(loadedDir);
    proxy = await connectProxy(
      config({ fx: nodeEntry(META_SERVER) }),
      {},
      {
        NODE_OPTIONS: `--require ${join(FIXTURES, 'loadedFiles.cjs')}`,
        QIMING_TEST_LOADED_DIR: loadedDir,
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
        OTEL_TRACES_EXPORTER: '',
      },
    );
    const meta = { traceparent: TRACEPARENT, tracestate: TRACESTATE, 'example.com/other': 1 };
    expect(await metaSeen(proxy, 'fx__meta', meta)).toEqual(meta);
    const pid = proxy.transport.pid!;
    await proxy.close();
    proxy = undefined;
    const file = join(loadedDir, `${pid}.json`);
    await waitFor(() => existsSync(file), 10_000, 'the list of files the proxy loaded');
    const { files } = JSON.parse(readFileSync(file, 'utf8')) as { files: string[] };
    expect(files).toContain('qiming-mcp-core.cjs');
    expect(files).not.toContain('qiming-mcp-tracing.cjs');
  });

  it('OTEL_TRACES_EXPORTER=none and OTEL_SDK_DISABLED=true turn off what an endpoint turned on', async () => {
    const c = await collector();
    const offs: Record<string, string>[] = [{ OTEL_TRACES_EXPORTER: 'none' }, { OTEL_SDK_DISABLED: 'true' }];
    for (const off of offs) {
      proxy = await connectProxy(
        config({ fx: nodeEntry(META_SERVER) }),
        {},
        {
          ...FAST_BATCH,
          OTEL_EXPORTER_OTLP_ENDPOINT: c.url,
          ...off,
        },
      );
      expect(await metaSeen(proxy, 'fx__meta', { traceparent: TRACEPARENT })).toEqual({ traceparent: TRACEPARENT });
      // A traced proxy delivers its spans before it exits (its stop flushes them): once it is gone, none came.
      await proxy.close();
      proxy = undefined;
    }
    expect(c.requests).toBe(0);
  });
});

describe('a collector that is away or never answers', () => {
  for (const kind of ['away', 'hanging'] as const) {
    it(`${kind}: the proxy answers, and its stop ends within its deadline`, async () => {
      const url = kind === 'away' ? await closedPortUrl() : (await collector({ hang: true })).url;
      proxy = await connectProxy(
        config({ fx: nodeEntry(META_SERVER) }),
        {},
        {
          ...FAST_BATCH,
          OTEL_EXPORTER_OTLP_ENDPOINT: url,
        },
      );
      const handle = proxy;
      for (let i = 0; i < 3; i++) expect((await metaSeen(handle, 'fx__meta')).traceparent).toMatch(/^00-/);
      if (kind === 'away')
        await waitFor(
          () => handle.stderr.some((l) => l.includes('tracing: spans not delivered')),
          20_000,
          'the failed export logged',
        );
      // One SIGTERM: the proxy's own stop, bounded by --shutdown-timeout (5 s), the flush within its 1 s.
      const pid = handle.transport.pid!;
      process.kill(pid, 'SIGTERM');
      await waitNoProcess(pid, 15_000);
      await handle.close();
      proxy = undefined;
      const log = handle.stderr.join('\n');
      expect(log).toMatch(/shutting down: received SIGTERM/);
      expect(log).not.toMatch(/forcing exit|exiting now/);
      if (kind === 'hanging') expect(log).toMatch(/spans not delivered within 1000 ms of the stop were dropped/);
      // One warning per failing run, not one per retry or batch.
      expect(handle.stderr.filter((l) => l.includes('tracing: spans not delivered:')).length).toBeLessThanOrEqual(1);
    });
  }
});
