// The `Mcp-Param-*` headers of 2026-07-28 Streamable HTTP: a tool whose inputSchema
// marks an argument with `x-mcp-header` (the fixture's `region`). The bridge's modern endpoint
// checks the headers against the body, as the conformance scenario
// `http-custom-header-server-validation` asks (run through /mcp/<id> and /mcp, in front of a
// stdio 2026 server and of an HTTP one), and the proxy's own transport to a 2026 HTTP server
// sends them (the SDK v2 server refuses a call without them).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectProxy, ensureBuilt } from '../../../helpers/proxyCli.js';
import { modernEntry, startModernHttp } from '../../../helpers/modernFixture.js';
import { cleanupBridges, startBridge } from '../../../helpers/bridgeProcess.js';
import { authForwarder, runConformance } from '../../../helpers/conformance2026.js';
import { text } from '../../../helpers/toolText.js';
import { paramHeadersOf } from '../../../../src/proxy/common/mcpParamHeaders.js';

const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await cleanupBridges();
});

describe('Mcp-Param-* headers', () => {
  it('the proxy sends them to a 2026 HTTP server (plain and Base64 values)', async () => {
    const server = await startModernHttp('m');
    cleanups.push(server.stop);
    const h = await connectProxy([
      '--config',
      JSON.stringify({ mcpServers: { m: { url: server.url, type: 'http' } } }),
      '--no-watchdog',
    ]);
    cleanups.push(() => h.close());
    expect(text(await h.client.callTool({ name: 'm__region', arguments: { region: 'us-west1', query: 'q' } }))).toBe(
      'q in us-west1',
    );
    expect(text(await h.client.callTool({ name: 'm__region', arguments: { region: ' 東京 ', query: 'q' } }))).toBe(
      'q in  東京 ',
    );
  });

  it('the bridge checks them as the conformance scenario http-custom-header-server-validation asks', async () => {
    const server = await startModernHttp('h');
    cleanups.push(server.stop);
    const b = await startBridge({
      config: { mcpServers: { m: modernEntry('m'), h: { url: server.url, type: 'http' } } },
    });
    const fw = await authForwarder(b.url, b.auth);
    cleanups.push(fw.close);
    for (const path of ['/mcp/m', '/mcp/h', '/mcp']) {
      // Five requirement ids (some checked by several cases), plus the wire-schema check.
      const checks = await runConformance(fw.url + path, 60_000, 'http-custom-header-server-validation');
      const failed = [...checks].filter(([, v]) => v !== 'SUCCESS');
      expect({ path, size: checks.size, failed }).toEqual({ path, size: 10, failed: [] });
    }
    // The rejections one by one (the tally above keeps one status per id).
    const call = async (region: string, header?: string) => {
      const body = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
          name: 'region',
          arguments: { region, query: 'q' },
        },
      };
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'tools/call',
        'Mcp-Name': 'region',
        ...(header === undefined ? {} : { 'Mcp-Param-Region': header }),
      };
      const res = await b.fetch('/mcp/m', { method: 'POST', headers, body: JSON.stringify(body) });
      const json = (await res.json()) as { error?: { code: number; message: string } };
      return { status: res.status, code: json.error?.code };
    };
    expect(await call('Hello', '=?base64?SGVsbG8=?=')).toEqual({ status: 200, code: undefined });
    expect(await call('Hello', '=?base64?SGVsbG8?=')).toEqual({ status: 400, code: -32020 });
    expect(await call('Hello', '=?base64?SGVs!!!bG8=?=')).toEqual({ status: 400, code: -32020 });
    expect(await call('Hello', 'Goodbye')).toEqual({ status: 400, code: -32020 });
    expect(await call('Hello')).toEqual({ status: 400, code: -32020 });
    expect(await call('=?base64?SGVsbG8=', '=?base64?SGVsbG8=')).toEqual({ status: 200, code: undefined });
  }, 120_000);

  it('reads the annotations by the rules of the schema extension', () => {
    expect(
      paramHeadersOf({
        type: 'object',
        properties: { r: { type: 'string', 'x-mcp-header': 'Region' }, q: { type: 'string' } },
      }),
    ).toEqual([{ path: ['r'], name: 'Region' }]);
    expect(
      paramHeadersOf({
        properties: { o: { type: 'object', properties: { n: { type: 'integer', 'x-mcp-header': 'N' } } } },
      }),
    ).toEqual([{ path: ['o', 'n'], name: 'N' }]);
    expect(paramHeadersOf({ properties: { x: { type: 'number', 'x-mcp-header': 'X' } } })).toMatch(
      /primitive|string, integer or boolean/,
    );
    expect(paramHeadersOf({ properties: { x: { type: 'string', 'x-mcp-header': 'a b' } } })).toMatch(/token/);
    expect(
      paramHeadersOf({
        properties: { a: { type: 'string', 'x-mcp-header': 'A' }, b: { type: 'string', 'x-mcp-header': 'a' } },
      }),
    ).toMatch(/twice/);
    expect(
      paramHeadersOf({ properties: { l: { type: 'array', items: { type: 'string', 'x-mcp-header': 'L' } } } }),
    ).toMatch(/reachable/);
  });
});
