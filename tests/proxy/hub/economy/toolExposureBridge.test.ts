// Tool exposure in the real bridge: its aggregate `/mcp` lists by search while `/mcp/<id>`
// stays one server as before; a session's found tools and their list_changed are its own,
// never another session's; /status shows each server's weight, the mode in force and what each
// session loaded; a reload switches the mode (and what is always listed) without restarting a
// server; the app's chain (the stdio aggregation over stream links) lists by search too; a
// 2026-07-28 client searches and calls over HTTP; the agent's proxy in that chain tells the bridge
// which tools its session loaded, and the bridge's status shows them while that proxy runs; a
// `/mcp` session that asks for every tool (an agent that searches by itself) gets them all.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { cleanupBridges, fixture, nodeEntry, startBridge, tempDir, waitFor } from '../../../helpers/bridgeProcess.js';
import { connectProxy, ensureBuilt, type ProxyHandle } from '../../../helpers/proxyCli.js';
import { text } from '../../../helpers/toolText.js';
import { TOOL_EXPOSURE_HEADER } from '../../../../src/proxy/index.js';

type Json = Record<string, any>;

const FIXTURE = fixture('mcpFixtureServer.mjs');
const FIXTURE_TOOLS = ['echo', 'whoami', 'blob', 'slow', 'sample', 'die', 'add_tool'];
const META = ['search_tools', 'call_tool'];
const prefixed = (id: string) => FIXTURE_TOOLS.map((t) => `${id}__${t}`);
const names = (tools: { name: string }[]) => tools.map((t) => t.name);

const closers: (() => Promise<unknown>)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
  await cleanupBridges();
});

function counted(client: Client): { count: number } {
  const seen = { count: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.count++);
  return seen;
}

const servers = () => ({ a: nodeEntry(FIXTURE, ['--name', 'a']), b: nodeEntry(FIXTURE, ['--name', 'b']) });

describe("the bridge's /mcp in search mode", () => {
  it('lists every tool, and no meta-tool, to a /mcp session opened with X-Qiming-Tool-Exposure: all', async () => {
    const b = await startBridge({ config: { toolExposure: 'search', mcpServers: servers() } });
    const all = await b.client('/mcp', { headers: { 'X-Qiming-Tool-Exposure': 'all' } });
    const plain = await b.client('/mcp');
    expect(names((await all.client.listTools()).tools).sort()).toEqual([...prefixed('a'), ...prefixed('b')].sort());
    expect(names((await plain.client.listTools()).tools)).toEqual(META);
    // A single route lists its server whatever the header says.
    const single = await b.client('/mcp/a', { headers: { 'X-Qiming-Tool-Exposure': 'all' } });
    expect(names((await single.client.listTools()).tools)).toEqual(FIXTURE_TOOLS);
  });

  it("gives found tools and their list_changed to the session that searched only; /mcp/<id> is one server's list as before", async () => {
    const b = await startBridge({ config: { toolExposure: 'search', mcpServers: servers() } });
    const one = await b.client('/mcp', { name: 'searcher' });
    const two = await b.client('/mcp', { name: 'bystander' });
    const seenOne = counted(one.client);
    const seenTwo = counted(two.client);
    expect(names((await one.client.listTools()).tools)).toEqual(META);
    expect(names((await two.client.listTools()).tools)).toEqual(META);

    const found = await one.client.callTool({ name: 'search_tools', arguments: { query: 'echo', limit: 2 } });
    const hits = (found.structuredContent as { tools: Json[] }).tools.map((t) => t.name);
    const foundNames = [...hits].sort();
    expect(foundNames).toEqual(['a__echo', 'b__echo']);
    await waitFor(() => seenOne.count === 1, 10_000, "list_changed on the searching session's stream");
    expect(names((await one.client.listTools()).tools).sort()).toEqual([...META, ...foundNames].sort());
    // The other session: a round trip after the first one heard of it, and still nothing, in its list either.
    expect(names((await two.client.listTools()).tools)).toEqual(META);
    expect(seenTwo.count).toBe(0);

    const single = await b.client('/mcp/a');
    expect(names((await single.client.listTools()).tools)).toEqual(FIXTURE_TOOLS);
    // The server itself answers: no meta-tool on a single route.
    const asked = await single.client.callTool({ name: 'search_tools', arguments: { query: 'echo' } });
    expect(text(asked)).toMatch(/Tool search_tools not found/);

    // The status: each server's weight, the mode in force, and what the searching session loaded.
    const status = (await b.status()) as Json;
    for (const id of ['a', 'b']) {
      const s = status.servers.find((x: Json) => x.id === id);
      expect(s.toolCount).toBe(7);
      expect(s.toolTokens).toBeGreaterThan(100);
    }
    const sum = status.servers.reduce((n: number, s: Json) => n + s.toolTokens, 0);
    expect(status.economy).toMatchObject({
      exposure: 'search',
      inForce: 'search',
      budgetTokens: 20_000,
      totalTools: 14,
      alwaysServers: [],
    });
    expect(Math.abs(status.economy.totalTokens - sum)).toBeLessThanOrEqual(2);
    expect(status.economy.sessions).toEqual([
      { id: expect.any(Number), client: 'searcher', startedAt: expect.any(String), loaded: hits },
    ]);
  }, 60_000);

  it('lets a 2026-07-28 client over HTTP search and call through call_tool', async () => {
    const b = await startBridge({ config: { toolExposure: 'search', mcpServers: servers() } });
    const client = new ModernClient(
      { name: 'modern-http', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    closers.push(() => client.close());
    await client.connect(new ModernHttp(new URL(`${b.url}/mcp`), { requestInit: { headers: b.auth } }));
    expect(names((await client.listTools()).tools)).toEqual(META);
    const found = (await client.callTool({ name: 'search_tools', arguments: { query: 'pid init count' } })) as Json;
    expect(found.structuredContent.tools.map((t: Json) => t.name)).toContain('a__whoami');
    const called = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'b__echo', arguments: { text: 'hi' } },
    });
    expect(text(called)).toBe('hi');
    // Each of its requests is a session of its own: one that carries X-Qiming-Tool-Exposure: all lists every tool.
    const all = new ModernClient(
      { name: 'modern-http-all', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    closers.push(() => all.close());
    await all.connect(
      new ModernHttp(new URL(`${b.url}/mcp`), {
        requestInit: { headers: { ...b.auth, [TOOL_EXPOSURE_HEADER]: 'all' } },
      }),
    );
    expect(names((await all.listTools()).tools)).toEqual([...prefixed('a'), ...prefixed('b')]);
  }, 60_000);
});

describe('a reload of the bridge', () => {
  it('switches the mode and what is always listed without restarting a server, with list_changed', async () => {
    const dir = tempDir();
    const file = join(dir, 'mcp.json');
    writeFileSync(file, JSON.stringify({ toolExposure: 'all', mcpServers: servers() }));
    const b = await startBridge({ config: file });
    const pids = async () => (await b.status()).servers.map((s) => s.pid);
    const before = await pids();
    const { client } = await b.client('/mcp');
    const seen = counted(client);
    expect(names((await client.listTools()).tools)).toEqual([...prefixed('a'), ...prefixed('b')]);

    const s = servers();
    writeFileSync(
      file,
      JSON.stringify({ toolExposure: 'search', mcpServers: { ...s, b: { ...s.b, expose: 'always' } } }),
    );
    const answer = (await (await b.fetch('/config/reload', { method: 'POST' })).json()) as Json;
    expect(answer).toMatchObject({ ok: true, restarted: [], unchanged: ['a', 'b'] });
    expect(answer.options.sort()).toEqual(['exposeAlways', 'toolExposure']);
    await waitFor(() => seen.count === 1, 10_000, 'list_changed after the reload');
    expect(names((await client.listTools()).tools)).toEqual([...META, ...prefixed('b')]);
    expect((await b.status()).economy).toMatchObject({ exposure: 'search', inForce: 'search', alwaysServers: ['b'] });

    // An edit that breaks b's entry: b keeps running on its previous entry, and stays always listed.
    writeFileSync(
      file,
      JSON.stringify({ toolExposure: 'search', mcpServers: { ...s, b: { ...s.b, args: [1], expose: 'always' } } }),
    );
    const broken = (await (await b.fetch('/config/reload', { method: 'POST' })).json()) as Json;
    expect(broken).toMatchObject({ ok: true, invalid: ['b'], options: [] });
    expect(names((await client.listTools()).tools)).toEqual([...META, ...prefixed('b')]);
    expect((await b.status()).economy?.alwaysServers).toEqual(['b']);

    writeFileSync(file, JSON.stringify({ toolBudgetTokens: 1_000_000, mcpServers: servers() }));
    await b.fetch('/config/reload', { method: 'POST' });
    await waitFor(() => seen.count === 2, 10_000, 'list_changed after the second reload');
    expect(names((await client.listTools()).tools)).toEqual([...prefixed('a'), ...prefixed('b')]);
    expect(await pids()).toEqual(before);
  }, 60_000);
});

/** A bridge of servers a and b, and an agent's proxy in search mode linked to both (the app's chain). */
async function appChain(): Promise<{ b: Awaited<ReturnType<typeof startBridge>>; h: ProxyHandle }> {
  const b = await startBridge({ config: { mcpServers: servers() } });
  const link = (id: string) => ({ type: 'bridge', url: `${b.url}/mcp/${id}`, headers: b.auth });
  const h = await connectProxy([
    '--config',
    JSON.stringify({ toolExposure: 'search', mcpServers: { a: link('a'), b: link('b') } }),
    '--no-watchdog',
  ]);
  closers.push(() => h.close());
  return { b, h };
}

describe("the app's chain: the stdio aggregation over the bridge's stream links", () => {
  it('lists by search, finds, and calls with progress through the chain', async () => {
    const { h } = await appChain();
    const seen = counted(h.client);
    const listed = (await h.client.listTools()).tools;
    expect(names(listed)).toEqual(META);
    expect(listed[0]!.description).toContain('- a (7 tools): tools such as echo, whoami, blob, slow');

    await h.client.callTool({ name: 'search_tools', arguments: { query: 'waits sending progress', limit: 1 } });
    await waitFor(() => seen.count === 1, 10_000, 'list_changed after the search');
    expect(names((await h.client.listTools()).tools)).toContain('a__slow');
    const progress: number[] = [];
    const done = await h.client.callTool(
      { name: 'call_tool', arguments: { name: 'b__slow', arguments: { ms: 200, steps: 2 } } },
      CallToolResultSchema,
      { onprogress: (p) => void progress.push(p.progress) },
    );
    expect(text(done)).toBe('slept 200');
    expect(progress).toEqual([1, 2]);
  }, 60_000);

  it("shows in the bridge's status which tools the agent's session loaded, until its proxy is gone", async () => {
    const { b, h } = await appChain();
    const pid = h.transport.pid!;
    await h.client.callTool({ name: 'search_tools', arguments: { query: 'waits sending progress', limit: 1 } });
    const agentSessions = async () => ((await b.status()) as Json).economy.sessions.filter((s: Json) => s.agentPid);
    await waitFor(async () => (await agentSessions()).length === 1, 15_000, "the agent proxy's report in /status");
    const [reported] = await agentSessions();
    expect(reported).toMatchObject({ agentPid: pid, id: 1, loaded: ['a__slow'] });
    expect(Date.parse(reported.startedAt)).not.toBeNaN();

    // A second search adds to the same session's report.
    await h.client.callTool({ name: 'search_tools', arguments: { query: 'echo', limit: 2 } });
    await waitFor(async () => (await agentSessions())[0]?.loaded.length === 3, 15_000, 'the grown report in /status');
    expect([...(await agentSessions())[0].loaded].sort()).toEqual(['a__echo', 'a__slow', 'b__echo']);

    await h.close();
    await waitFor(async () => (await agentSessions()).length === 0, 15_000, 'the report gone with its proxy');
  }, 90_000);
});

describe("the bridge route for agent proxies' reports", () => {
  it('refuses a request without the token, a malformed report, and another method', async () => {
    const b = await startBridge({ config: { mcpServers: servers() } });
    const post = (body: string, headers: Record<string, string> = b.auth) =>
      fetch(`${b.url}/economy/sessions`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body,
      });
    expect((await post('{}', {})).status).toBe(401);
    const bad = await post(JSON.stringify({ pid: process.pid, sessions: [{ id: 1, startedAt: 'x', loaded: 'a' }] }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error).toMatch(/sessions\[0\]"\.loaded must be at most 64 tool names/);
    expect((await post('not json')).status).toBe(400);
    expect((await fetch(`${b.url}/economy/sessions`, { headers: b.auth })).status).toBe(405);
    // A report of a live pid shows; an empty one takes it back.
    const report = {
      pid: process.pid,
      sessions: [{ id: 7, client: 'x', startedAt: new Date().toISOString(), loaded: ['a__echo'] }],
    };
    expect((await post(JSON.stringify(report))).status).toBe(204);
    const sessions = async () => ((await b.status()) as Json).economy.sessions;
    expect(await sessions()).toEqual([{ ...report.sessions[0], agentPid: process.pid }]);
    expect((await post(JSON.stringify({ pid: process.pid, sessions: [] }))).status).toBe(204);
    expect(await sessions()).toEqual([]);
  }, 60_000);
});
