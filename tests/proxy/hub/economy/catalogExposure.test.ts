// The tool economy over the 22 real servers of the catalog, replayed, through the built CLI's
// stdio aggregation: by default (`auto`, the set far past the budget) the first tools/list is
// the meta-tools alone, under 3% of the bytes of `all`; search_tools finds the tool a task
// needs among the 389 and call_tool reaches it; `"expose": "always"` keeps a server listed.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { catalogServers, catalogTools } from '../../../helpers/catalogSet.js';
import { cleanup, CliProcess } from '../../../helpers/cliProcess.js';
import { ensureBuilt } from '../../../helpers/proxyCli.js';

type Json = Record<string, any>;

beforeAll(() => ensureBuilt());
afterEach(cleanup);

/** The stdio aggregation of the whole set, initialized, and a raw request function that also gives the answer's bytes. */
async function aggregation(top: Record<string, unknown> = {}, servers: Record<string, unknown> = catalogServers()) {
  const p = new CliProcess(['--config', JSON.stringify({ mcpServers: servers, ...top }), '--no-watchdog']);
  await p.initialize();
  let id = 10;
  const request = async (method: string, params: Json = {}) => {
    const n = id++;
    p.send({ jsonrpc: '2.0', id: n, method, params });
    const answer = await p.reply(n, 60_000);
    const line = p.lines().find((l) => l.startsWith(`{"jsonrpc":"2.0","id":${n},`))!;
    return { answer, bytes: Buffer.byteLength(line, 'utf8') };
  };
  return request;
}

describe('the 22 catalog servers through the stdio aggregation', () => {
  it('list the meta-tools alone by default, under 3% of the bytes of every tool, and find and call what a task needs', async () => {
    const all = await (await aggregation({ toolExposure: 'all' }))('tools/list');
    expect(all.answer.result.tools).toHaveLength(catalogTools().length);

    const request = await aggregation();
    const first = await request('tools/list');
    expect(first.answer.result.tools.map((t: Json) => t.name)).toEqual(['search_tools', 'call_tool']);
    // The figures (bytes of each first tools/list answer) for the record.
    console.info(
      `catalog tools/list bytes: all ${all.bytes}, search ${first.bytes} (${((100 * first.bytes) / all.bytes).toFixed(2)}%)`,
    );
    expect(first.bytes / all.bytes).toBeLessThan(0.03);
    const description = first.answer.result.tools[0].description as string;
    for (const id of Object.keys(catalogServers()))
      expect(description).toMatch(new RegExp(`^- ${id} \\(\\d+ tools?\\): `, 'm'));

    const found = (
      await request('tools/call', {
        name: 'search_tools',
        arguments: { query: 'take a screenshot of the current web page' },
      })
    ).answer.result;
    const names = (found.structuredContent.tools as Json[]).map((t) => t.name);
    expect(
      names.some((n) => /^(playwright|chrome-devtools|puppeteer)__.*screenshot/i.test(n)),
      names.join(),
    ).toBe(true);
    const listed = (await request('tools/list')).answer.result.tools.map((t: Json) => t.name);
    expect(listed).toEqual(['search_tools', 'call_tool', ...names]);

    const called = (
      await request('tools/call', {
        name: 'call_tool',
        arguments: { name: 'memory__read_graph', arguments: {} },
      })
    ).answer.result;
    expect(JSON.parse(called.content[0].text)).toEqual({ server: 'memory', tool: 'read_graph', arguments: {} });
  }, 180_000);

  it('keeps an always server listed beside the meta-tools', async () => {
    const request = await aggregation(
      {},
      { ...catalogServers(), memory: { ...catalogServers().memory, expose: 'always' } },
    );
    const listed = (await request('tools/list')).answer.result.tools.map((t: Json) => t.name);
    const memory = catalogTools(['memory']).map(({ tool }) => `memory__${tool.name}`);
    expect(listed).toEqual(['search_tools', 'call_tool', ...memory]);
  }, 180_000);
});
