// Tool exposure in the stdio aggregation, through the built CLI and real servers: `all` lists
// what it always did; `search` lists the meta-tools and the `"expose": "always"` servers'
// tools; `auto` flips at `toolBudgetTokens` and again as a server goes and comes back;
// search_tools answers with full definitions that match its outputSchema and adds them to the
// session's list (with list_changed); call_tool is a tools/call of its tool in every way a
// client can tell (results, server errors, unknown and filtered tools, timeouts, progress,
// cancellation); a 2026-07-28 client searches and calls, its held calls included; a server
// tool named like a meta-tool keeps its prefix.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { estimateTokens } from '../../../../src/proxy/hub/economy/tokenEstimate.js';
import { CliProcess, cleanup, trackPids } from '../../../helpers/cliProcess.js';
import {
  CLI,
  connectProxy,
  ensureBuilt,
  fixtureEntry,
  readState,
  tempDir,
  waitFor,
  type ProxyHandle,
} from '../../../helpers/proxyCli.js';
import { closeModernClients, stdioClient } from '../../../helpers/modernClient.js';
import { FIXTURES } from '../../../helpers/paths.js';
import { text } from '../../../helpers/toolText.js';

type Json = Record<string, any>;

const handles: ProxyHandle[] = [];
const dirs: { remove: () => void }[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await closeModernClients();
  for (const h of handles.splice(0)) await h.close();
  await cleanup();
  for (const d of dirs.splice(0)) d.remove();
});

const META = ['search_tools', 'call_tool'];
const FIXTURE_TOOLS = ['echo', 'whoami', 'blob', 'slow', 'sample', 'die', 'add_tool'];
const SLOW_START = join(FIXTURES, 'slowStartServer.mjs');

function configArgs(servers: Record<string, unknown>, top: Record<string, unknown> = {}): string[] {
  return ['--config', JSON.stringify({ mcpServers: servers, ...top }), '--no-watchdog'];
}

/** The built CLI under an SDK v1 client, counting the tools/list_changed it hears. */
async function sdkProxy(servers: Record<string, unknown>, top: Record<string, unknown> = {}) {
  const h = await connectProxy(configArgs(servers, top));
  handles.push(h);
  const changed = { count: 0 };
  h.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed.count++);
  return { client: h.client, changed };
}

/** The built CLI under a raw line client, initialized: exact results and errors. */
async function rawProxy(servers: Record<string, unknown>, top: Record<string, unknown> = {}) {
  const p = new CliProcess(configArgs(servers, top));
  await p.initialize();
  let id = 10;
  const request = async (method: string, params: Json = {}) => {
    const n = id++;
    p.send({ jsonrpc: '2.0', id: n, method, params });
    const { id: _id, jsonrpc: _j, ...answer } = await p.reply(n, 30_000);
    return answer as { result?: Json; error?: Json };
  };
  return { p, request };
}

const names = (tools: { name: string }[]) => tools.map((t) => t.name);
const prefixed = (id: string, tools = FIXTURE_TOOLS) => tools.map((t) => `${id}__${t}`);

describe('toolExposure "all" and "auto" within the budget', () => {
  it('list every server tool exactly alike, without meta-tools; under "all" search_tools is no tool at all', async () => {
    const servers = { a: fixtureEntry('a'), b: fixtureEntry('b') };
    const all = await rawProxy(servers, { toolExposure: 'all' });
    const auto = await rawProxy(servers);
    const listed = (await all.request('tools/list')).result!;
    expect(names(listed.tools)).toEqual([...prefixed('a'), ...prefixed('b')]);
    expect((await auto.request('tools/list')).result).toEqual(listed);
    expect(await all.request('tools/call', { name: 'search_tools', arguments: { query: 'echo' } })).toEqual({
      error: { code: -32602, message: 'Unknown tool: search_tools' },
    });
  }, 60_000);
});

describe('toolExposure "auto"', () => {
  it('lists every tool at exactly the budget, and by search one token past it', async () => {
    const servers = { a: fixtureEntry('a') };
    const measure = await rawProxy(servers, { toolExposure: 'all' });
    const full = (await measure.request('tools/list')).result!;
    const tokens = estimateTokens(full.tools);

    const within = await rawProxy(servers, { toolBudgetTokens: tokens });
    expect((await within.request('tools/list')).result).toEqual(full);
    const past = await rawProxy(servers, { toolBudgetTokens: tokens - 1 });
    expect(names((await past.request('tools/list')).result!.tools)).toEqual(META);
  }, 60_000);

  it('lists every tool while a server is down and by search again once it is back, with list_changed each time', async () => {
    const dir = tempDir('qiming-exposure-');
    dirs.push(dir);
    const gate = join(dir.path, 'gate');
    writeFileSync(gate, '');
    const servers = { a: fixtureEntry('a'), b: { command: process.execPath, args: [SLOW_START, '--gate', gate] } };
    // The budget: what `a` alone weighs, so that `a` and `b` together are past it.
    const measure = await rawProxy({ a: servers.a }, { toolExposure: 'all' });
    const budget = estimateTokens((await measure.request('tools/list')).result!.tools);

    const { client, changed } = await sdkProxy(servers, { toolBudgetTokens: budget });
    expect(names((await client.listTools()).tools)).toEqual(META);
    const pid = Number(text(await client.callTool({ name: 'call_tool', arguments: { name: 'b__pid' } })));
    trackPids(pid);
    // Its next start waits for the gate: `b` stays down until the test opens it again.
    rmSync(gate);
    process.kill(pid, 'SIGKILL');
    await waitFor(() => changed.count >= 1, 15_000, 'list_changed once b is down');
    expect(names((await client.listTools()).tools)).toEqual(prefixed('a'));
    writeFileSync(gate, '');
    await waitFor(() => changed.count >= 2, 30_000, 'list_changed once b is back');
    expect(names((await client.listTools()).tools)).toEqual(META);
  }, 90_000);
});

describe('toolExposure "search"', () => {
  it("lists the meta-tools and the always servers' tools; search_tools adds what it found, with list_changed", async () => {
    const { client, changed } = await sdkProxy(
      { a: fixtureEntry('a'), b: { ...fixtureEntry('b'), expose: 'always', description: 'The second fixture.' } },
      { toolExposure: 'search' },
    );
    const first = (await client.listTools()).tools;
    expect(names(first)).toEqual([...META, ...prefixed('b')]);
    const search = first.find((t) => t.name === 'search_tools')!;
    expect(search.description).toContain('- a (7 tools): tools such as echo, whoami, blob, slow');
    expect(search.description).toContain('- b (7 tools, always listed): The second fixture.');
    expect(search.outputSchema).toBeDefined();
    expect(first.find((t) => t.name === 'call_tool')!.outputSchema).toBeUndefined();

    // The SDK client checks structuredContent against the outputSchema it listed.
    const found = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'returns bytes of text', limit: 2 },
    });
    const tools = (found.structuredContent as { tools: Json[] }).tools;
    expect(tools[0]).toMatchObject({ name: 'a__blob', description: 'returns N bytes of text' });
    expect(tools[0]!.inputSchema.properties).toEqual({ bytes: { type: 'number' } });
    expect(JSON.parse(text(found))).toEqual(found.structuredContent);
    await waitFor(() => changed.count === 1, 10_000, 'list_changed after the search');

    const after = (await client.listTools()).tools;
    const joined = tools.filter((t) => t.name.startsWith('a__')).map((t) => t.name);
    expect(names(after)).toEqual([...META, ...prefixed('b'), ...joined]);
    // The definition search_tools gave is the one listed.
    const listedBlob = after.find((t) => t.name === 'a__blob')! as Json;
    expect(Object.fromEntries(Object.keys(tools[0]!).map((k) => [k, listedBlob[k]]))).toEqual(tools[0]);
    expect(text(await client.callTool({ name: 'a__blob', arguments: { bytes: 3 } }))).toBe('xxx');

    // A search that finds only what is listed already changes nothing; the next one that adds does.
    await client.callTool({ name: 'search_tools', arguments: { query: 'returns bytes of text', limit: 2 } });
    await client.callTool({ name: 'search_tools', arguments: { query: 'pid and init count', limit: 1 } });
    await waitFor(() => changed.count === 2, 10_000, 'one list_changed for the search that added a tool');
    expect(names((await client.listTools()).tools)).toContain('a__whoami');
    expect(changed.count).toBe(2);
  }, 60_000);

  it('answers call_tool as the direct call: results, server errors, unknown and filtered tools, timeouts', async () => {
    const { request } = await rawProxy(
      { a: { ...fixtureEntry('a'), tools: { deny: ['blob'] }, toolTimeouts: { slow: 400 } } },
      { toolExposure: 'search' },
    );
    const cases: [string, Json | undefined][] = [
      ['a__echo', { text: 'hi' }],
      ['a__echo', { text: 42 }],
      ['a__nope', {}],
      ['a__blob', { bytes: 3 }],
      ['a__slow', { ms: 5000, steps: 1 }],
      ['a__whoami', undefined],
    ];
    for (const [name, args] of cases) {
      const direct = await request('tools/call', { name, ...(args ? { arguments: args } : {}) });
      const through = await request('tools/call', {
        name: 'call_tool',
        arguments: { name, ...(args ? { arguments: args } : {}) },
      });
      expect(through, name).toEqual(direct);
    }
    // What a client gets for each, as the direct call: a server's own error, an unknown tool, a filtered one, a timeout.
    const direct = async (name: string, args: Json) => (await request('tools/call', { name, arguments: args })).error;
    expect((await request('tools/call', { name: 'a__echo', arguments: { text: 42 } })).result?.isError).toBe(true);
    expect(await direct('a__nope', {})).toEqual({ code: -32602, message: 'Unknown tool: a__nope' });
    // A filtered tool is refused with a tool result that says how to allow it (hub/policyRefusal.ts).
    const filtered = (await request('tools/call', { name: 'a__blob', arguments: { bytes: 3 } })).result;
    expect(filtered?.isError).toBe(true);
    expect((filtered?.content as { text: string }[])[0]!.text).toMatch(
      /^Tool a__blob is not allowed by the proxy configuration: the tool filters of server "a" hide "blob"/,
    );
    expect((await direct('a__slow', { ms: 5000, steps: 1 }))?.message).toMatch(/timed out/i);
    // Its own arguments checked: a tool error the model can read.
    expect((await request('tools/call', { name: 'call_tool', arguments: {} })).result).toEqual({
      content: [{ type: 'text', text: 'call_tool needs "name": the name of a tool, as search_tools gives it' }],
      isError: true,
    });
  }, 90_000);

  it("carries the outer call's progress token and cancellation to the tool call_tool calls", async () => {
    const dir = tempDir('qiming-exposure-');
    dirs.push(dir);
    const state = join(dir.path, 'state.jsonl');
    const { client } = await sdkProxy({ a: fixtureEntry('a', [], state) }, { toolExposure: 'search' });
    const progress: number[] = [];
    const done = await client.callTool(
      { name: 'call_tool', arguments: { name: 'a__slow', arguments: { ms: 400, steps: 4 } } },
      CallToolResultSchema,
      { onprogress: (p) => void progress.push(p.progress) },
    );
    expect(text(done)).toBe('slept 400');
    expect(progress).toEqual([1, 2, 3, 4]);

    const abort = new AbortController();
    const cancelled = client.callTool(
      { name: 'call_tool', arguments: { name: 'a__slow', arguments: { ms: 60_000, steps: 600 } } },
      CallToolResultSchema,
      { signal: abort.signal, onprogress: () => abort.abort('enough') },
    );
    await expect(cancelled).rejects.toThrow(/enough|abort/i);
    await waitFor(() => readState(state).some((e) => e.event === 'cancelled'), 10_000, 'the server to see the cancel');
  }, 60_000);

  it('keeps the prefix of a server tool named like a meta-tool, even with original names', async () => {
    const { client, changed } = await sdkProxy({ a: fixtureEntry('a') }, { toolNaming: 'original' });
    expect(names((await client.listTools()).tools)).toEqual(FIXTURE_TOOLS);
    await client.callTool({ name: 'add_tool', arguments: { id: 'search_tools' } });
    await waitFor(() => changed.count >= 1, 10_000, 'list_changed for the added tool');
    expect(names((await client.listTools()).tools)).toEqual([...FIXTURE_TOOLS, 'a__search_tools']);
    expect(text(await client.callTool({ name: 'a__search_tools', arguments: {} }))).toBe('search_tools');
  }, 60_000);
});

describe('a 2026-07-28 client of an aggregate that lists by search', () => {
  it('searches, hears of the tools it found on its listen, and calls through call_tool, a held call included', async () => {
    const asking = {
      command: process.execPath,
      args: [join(FIXTURES, 'askingServer.mjs')],
      clientCapabilities: { sampling: true },
    };
    const client: Client | any = await stdioClient(
      process.execPath,
      [CLI, ...configArgs({ a: fixtureEntry('a'), asking }, { toolExposure: 'search' })],
      { pin: '2026-07-28' },
      { sampling: {} },
      {
        setup: (c) =>
          c.setRequestHandler('sampling/createMessage', async () => ({
            role: 'assistant',
            content: { type: 'text', text: 'green' },
            model: 'test',
            stopReason: 'endTurn',
          })),
      },
    );
    expect(client.getProtocolEra()).toBe('modern');
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void changed++);
    await client.listen({ toolsListChanged: true });
    expect(names((await client.listTools()).tools)).toEqual(META);

    const found = await client.callTool({ name: 'search_tools', arguments: { query: 'echo text', limit: 1 } });
    expect(found.structuredContent.tools.map((t: Json) => t.name)).toEqual(['a__echo']);
    await waitFor(() => changed >= 1, 10_000, 'list_changed on the listen');
    expect(names((await client.listTools()).tools)).toEqual([...META, 'a__echo']);

    const echoed = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'a__echo', arguments: { text: 'hi' } },
    });
    expect(text(echoed)).toBe('hi');
    // The 2025 server asks for a sample mid-call: the 2026 client answers the held call's round.
    const direct = await client.callTool({ name: 'asking__sample', arguments: { prompt: 'sky?' } });
    const through = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'asking__sample', arguments: { prompt: 'sky?' } },
    });
    expect(text(through)).toBe(text(direct));
    expect(text(through)).toContain('green');
  }, 60_000);
});
