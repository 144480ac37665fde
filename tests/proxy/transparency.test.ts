// The proxy is invisible: the same server-everything features, direct, through stdio
// aggregation, and through the app's chain (stdio proxy -> bridge stream link -> server),
// give the same results (names aside).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { cleanupBridges, startBridge } from '../helpers/bridgeProcess.js';
import {
  connectProxy,
  ensureBuilt,
  EVERYTHING,
  waitFor,
  waitNoProcess,
  type ProxyHandle,
} from '../helpers/proxyCli.js';

const caps = { elicitation: {}, sampling: {} };
/** The proxy declares to its servers what the config says its clients answer (here: what `caps` has). */
const declared = { sampling: true, elicitation: true };
const TOKEN = 'a-transparency-test-token-long-enough';
let direct: Client;
let directTransport: StdioClientTransport;

beforeAll(async () => {
  ensureBuilt();
  directTransport = new StdioClientTransport({ command: process.execPath, args: [EVERYTHING], stderr: 'pipe' });
  direct = new Client({ name: 'direct', version: '1' }, { capabilities: caps });
  await direct.connect(directTransport);
}, 60_000);

afterAll(async () => {
  const pid = directTransport.pid;
  await direct.close();
  if (pid) await waitNoProcess(pid, 8000);
});

/** The two ways our proxy sits between a client and server-everything (as server "e"). */
const PATHS: [string, () => Promise<ProxyHandle>][] = [
  [
    'stdio aggregation',
    () =>
      connectProxy(
        [
          '--config',
          JSON.stringify({
            clientCapabilities: declared,
            mcpServers: { e: { command: process.execPath, args: [EVERYTHING] } },
          }),
          '--no-watchdog',
        ],
        caps,
      ),
  ],
  [
    'the app chain: stdio proxy -> bridge stream link -> server',
    async () => {
      const bridge = await startBridge({
        config: { clientCapabilities: declared, mcpServers: { e: { command: process.execPath, args: [EVERYTHING] } } },
        token: TOKEN,
      });
      const e = {
        type: 'bridge',
        url: `${bridge.ready!.url}/mcp/e`,
        headers: { Authorization: 'Bearer ${MCP_BRIDGE_TOKEN}' },
      };
      return connectProxy(
        ['--config', JSON.stringify({ clientCapabilities: declared, mcpServers: { e } }), '--no-watchdog'],
        caps,
        {
          MCP_BRIDGE_TOKEN: TOKEN,
        },
      );
    },
  ],
];

describe.each(PATHS)('transparency against server-everything: %s', (_name, connect) => {
  let proxied: ProxyHandle;
  beforeAll(async () => {
    proxied = await connect();
  }, 60_000);
  afterAll(async () => {
    await proxied.close();
    await cleanupBridges();
  });

  it('binary content (image) is byte-identical', async () => {
    const a = await direct.callTool({ name: 'get-tiny-image', arguments: {} });
    const b = await proxied.client.callTool({ name: 'e__get-tiny-image', arguments: {} });
    expect(b).toEqual(a);
    expect(JSON.stringify(b)).toMatch(/"type":"image"/);
  });

  it('structured content and annotations are unchanged', async () => {
    const a = await direct.callTool({ name: 'get-structured-content', arguments: { location: 'New York' } });
    const b = await proxied.client.callTool({ name: 'e__get-structured-content', arguments: { location: 'New York' } });
    expect(b).toEqual(a);
  });

  it('pagination: the proxy lists every resource the server pages through', async () => {
    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await direct.listResources(cursor ? { cursor } : undefined);
      all.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor);
    const viaProxy = (await proxied.client.listResources()).resources.map((r) => r.uri);
    expect(viaProxy).toEqual(all);
  });

  it('elicitation reaches the client and its answer the server', async () => {
    proxied.client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { name: 'Ada', check: true, email: 'ada@example.com' },
    }));
    const res = JSON.stringify(
      await proxied.client.callTool({ name: 'e__trigger-elicitation-request', arguments: {} }),
    );
    expect(res).toContain('Ada');
  });

  it('sampling reaches the client and its answer the server', async () => {
    let asked = '';
    proxied.client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      asked = JSON.stringify(req.params.messages);
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled answer 42' } };
    });
    const res = JSON.stringify(
      await proxied.client.callTool({
        name: 'e__trigger-sampling-request',
        arguments: { prompt: 'hello sampler', maxTokens: 20 },
      }),
    );
    expect(asked).toContain('hello sampler');
    expect(res).toContain('sampled answer 42');
  });

  it('resource subscriptions deliver resources/updated', async () => {
    const updated: string[] = [];
    proxied.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    const uri = (await proxied.client.listResources()).resources[0].uri;
    await proxied.client.subscribeResource({ uri });
    await proxied.client.callTool({ name: 'e__toggle-subscriber-updates', arguments: {} });
    await waitFor(() => updated.includes(uri), 10_000, 'resources/updated');
    await proxied.client.unsubscribeResource({ uri });
  });

  it('log messages pass through', async () => {
    const logs: unknown[] = [];
    proxied.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await proxied.client.setLoggingLevel('debug');
    await proxied.client.callTool({ name: 'e__toggle-simulated-logging', arguments: {} });
    await waitFor(() => logs.length > 0, 12_000, 'a log message');
    await proxied.client.callTool({ name: 'e__toggle-simulated-logging', arguments: {} });
  });
});
