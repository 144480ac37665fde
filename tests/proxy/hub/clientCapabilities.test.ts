// The client capabilities the proxy declares to its upstreams: only what the config says
// the app's clients can answer (`clientCapabilities`, default none). Checked with the real
// server-everything, which offers its sampling, elicitation and roots tools only to a client
// that declares them: through the bridge and through stdio aggregation, a client that
// declares nothing must see the same tools as when it talks to the server directly.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../src/proxy/config/config.js';
import { declaredCapabilities } from '../../../src/proxy/config/clientCapabilities.js';
import {
  cleanupBridges,
  everythingEntry,
  EVERYTHING_SERVER,
  startBridge,
  waitNotRunning,
} from '../../helpers/bridgeProcess.js';
import { connectProxy, type ProxyHandle } from '../../helpers/proxyCli.js';

const handles: ProxyHandle[] = [];
afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
  await cleanupBridges();
});

/** server-everything's tools for a client connected to it directly. */
async function directTools(capabilities: ClientCapabilities): Promise<string[]> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [EVERYTHING_SERVER],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'direct', version: '1' }, { capabilities });
  await client.connect(transport);
  const pid = transport.pid!;
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
    expect(await waitNotRunning(pid, 5000)).toBe(true);
  }
}

const CONDITIONAL = ['get-roots-list', 'trigger-elicitation-request', 'trigger-sampling-request'];

describe('client capabilities declared to upstreams', () => {
  it('bridge: a client that declares none sees the tools it would see directly, /mcp/<id> and /mcp', async () => {
    const direct = await directTools({});
    for (const t of CONDITIONAL) expect(direct).not.toContain(t);
    const b = await startBridge({ config: { mcpServers: { everything: everythingEntry() } } });
    const { client } = await b.client('/mcp/everything');
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(direct);
    const { client: all } = await b.client('/mcp');
    expect((await all.listTools()).tools.map((t) => t.name.replace(/^everything__/, '')).sort()).toEqual(direct);
  });

  it('bridge: an entry that declares sampling gets what a direct sampling client gets, and sampling works', async () => {
    // What the proxy declares for `sampling: true` (sampling, and tasks for task-augmented sampling).
    const direct = await directTools(declaredCapabilities({ sampling: true }));
    expect(direct).toContain('trigger-sampling-request');
    expect(direct).toContain('trigger-sampling-request-async');
    const b = await startBridge({
      config: { mcpServers: { everything: { ...everythingEntry(), clientCapabilities: { sampling: true } } } },
    });
    const { client } = await b.client('/mcp/everything', { capabilities: { sampling: {} } });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(direct);
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      model: 'm',
      content: { type: 'text', text: 'sampled here' },
    }));
    const res = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 5 } });
    expect(JSON.stringify(res)).toContain('sampled here');
  });

  it('stdio aggregation: the top-level default applies, and none is the default', async () => {
    const direct = await directTools({});
    const none = await connectProxy([
      '--config',
      JSON.stringify({ mcpServers: { everything: everythingEntry() } }),
      '--no-watchdog',
    ]);
    handles.push(none);
    expect((await none.client.listTools()).tools.map((t) => t.name.replace(/^everything__/, '')).sort()).toEqual(
      direct,
    );
    const withRoots = await directTools({ roots: {} });
    const roots = await connectProxy(
      [
        '--config',
        JSON.stringify({ clientCapabilities: { roots: true }, mcpServers: { everything: everythingEntry() } }),
        '--no-watchdog',
      ],
      { roots: {} },
    );
    handles.push(roots);
    expect((await roots.client.listTools()).tools.map((t) => t.name.replace(/^everything__/, '')).sort()).toEqual(
      withRoots,
    );
  });

  it('config: the entry wins over the top-level default per key; bad values are refused by name', () => {
    const c = parseConfig({
      clientCapabilities: { sampling: true, roots: true },
      mcpServers: { a: { command: 'x', clientCapabilities: { roots: false } }, b: { command: 'y' } },
    });
    expect(c.servers.map((s) => s.clientCapabilities)).toEqual([
      { sampling: true, roots: false },
      { sampling: true, roots: true },
    ]);
    expect(parseConfig({ mcpServers: { a: { command: 'x' } } }).servers[0]!.clientCapabilities).toBeUndefined();
    const bad = () =>
      parseConfig({
        clientCapabilities: { sampeling: true },
        mcpServers: { a: { command: 'x', clientCapabilities: { sampling: 'yes' } } },
      });
    expect(bad).toThrow(ConfigError);
    try {
      bad();
    } catch (err) {
      expect((err as ConfigError).issues).toEqual([
        'clientCapabilities may only have the keys "sampling", "elicitation", "roots" and "tasks"',
        'server "a": clientCapabilities.sampling must be true or false',
      ]);
    }
  });
});
