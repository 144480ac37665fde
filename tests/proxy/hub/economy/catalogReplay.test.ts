// The tool catalog of 22 real servers replayed by tests/fixtures/catalogServer.mjs: the replay
// answers as the captured server did, and the built CLI's stdio aggregation over the whole
// set lists exactly the captured tools under their namespaced names and routes calls to them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { NameTable } from '../../../../src/proxy/hub/naming.js';
import { CATALOG_IDS, CATALOG_SERVER, catalogServers, catalogTools, loadCatalog } from '../../../helpers/catalogSet.js';
import { cleanup, CliProcess, trackPids } from '../../../helpers/cliProcess.js';
import { descendantsOf } from '../../../helpers/procTree.js';
import { ensureCli } from '../../../main/mainHarness.js';

/** The names the aggregation gives the captured tools (prefixed naming, the whole set configured). */
function expectedNames(): NameTable {
  const items = catalogTools().map(({ serverId, tool }) => ({ serverId, name: tool.name }));
  return new NameTable(items, 'prefixed', CATALOG_IDS);
}

describe('the replay of one captured server', () => {
  it('answers initialize and tools/list as captured, calls back with server, tool and arguments, and refuses an unknown tool', async () => {
    const captured = loadCatalog('everything');
    const client = new Client({ name: 'catalog-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CATALOG_SERVER, 'everything'] }));
    try {
      expect(client.getServerVersion()).toEqual(captured.serverInfo);
      expect(client.getInstructions()).toBe(captured.instructions);
      expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
      expect((await client.listTools()).tools).toEqual(captured.tools);

      const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
      expect(sum.content).toEqual([
        { type: 'text', text: JSON.stringify({ server: 'everything', tool: 'get-sum', arguments: { a: 2, b: 3 } }) },
      ]);
      // A tool with an outputSchema gets structured content the SDK client validates against it.
      const structured = await client.callTool({ name: 'get-structured-content', arguments: { location: 'x' } });
      expect(structured.structuredContent).toEqual({ temperature: 0, conditions: '', humidity: 0 });

      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
        'MCP error -32602: Unknown tool: no_such_tool',
      );
    } finally {
      await client.close();
    }
  });

  it('gives every captured tool with an outputSchema a result that a validating client accepts', async () => {
    const withSchemas = CATALOG_IDS.filter((id) => loadCatalog(id).tools.some((t) => t.outputSchema));
    expect(withSchemas.length).toBeGreaterThan(0);
    for (const id of withSchemas) {
      const client = new Client({ name: 'catalog-test', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [CATALOG_SERVER, id] }));
      try {
        for (const tool of loadCatalog(id).tools.filter((t) => t.outputSchema)) {
          const res = await client.callTool({ name: tool.name, arguments: {} });
          expect(res.structuredContent, `${id} ${tool.name}`).toBeDefined();
        }
      } finally {
        await client.close();
      }
    }
  });
});

describe('the stdio aggregation of the whole replayed set', () => {
  let cli: CliProcess;
  let listed: Array<Record<string, unknown>>;

  beforeAll(async () => {
    ensureCli();
    cli = new CliProcess([
      '--config',
      // Every tool listed, as before tool exposure: the set is far past the budget of the default `auto`.
      JSON.stringify({ toolExposure: 'all', mcpServers: catalogServers() }),
      '--no-watchdog',
      '--ready-timeout',
      '60000',
    ]);
    await cli.initialize();
    cli.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const reply = await cli.reply(2, 90_000);
    expect(reply.result.nextCursor).toBeUndefined();
    listed = reply.result.tools;
    // Every replayed server runs under the CLI now; cleanup() checks each one is gone.
    trackPids(...descendantsOf(cli.pid));
  }, 120_000);

  afterAll(async () => {
    cli.child.stdin!.end();
    await cli.waitExit(20_000);
    await cleanup();
  }, 60_000);

  it('lists exactly the captured tools of every server under their namespaced names, unchanged', () => {
    const names = expectedNames();
    const captured = catalogTools();
    expect(listed).toHaveLength(captured.length);
    const want = captured.map(({ serverId, tool }) => names.exposedName(serverId, tool.name)).sort();
    expect(listed.map((t) => t.name).sort()).toEqual(want);
    for (const tool of listed) {
      const owner = names.resolve(tool.name as string)!;
      const original = loadCatalog(owner.serverId as (typeof CATALOG_IDS)[number]).tools.find(
        (t) => t.name === owner.name,
      );
      expect({ ...tool, name: owner.name }, String(tool.name)).toEqual(original);
    }
  });

  it('routes a call of one tool of three servers to that server, arguments intact', async () => {
    const calls = [
      { serverId: 'github', tool: 'search_repositories', arguments: { query: 'mcp language:typescript', perPage: 5 } },
      { serverId: 'kubernetes', tool: 'kubectl_get', arguments: { resourceType: 'pods', namespace: 'default' } },
      { serverId: 'chart', tool: 'generate_pie_chart', arguments: { data: [{ category: 'a', value: 1 }] } },
    ] as const;
    const names = expectedNames();
    let id = 10;
    for (const call of calls) {
      const name = names.exposedName(call.serverId, call.tool);
      expect(listed.map((t) => t.name)).toContain(name);
      cli.send({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: call.arguments } });
      const reply = await cli.reply(id);
      expect(reply.result?.content, JSON.stringify(reply)).toEqual([
        { type: 'text', text: JSON.stringify({ server: call.serverId, tool: call.tool, arguments: call.arguments }) },
      ]);
    }
  });
});
