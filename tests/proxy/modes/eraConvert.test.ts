// `convert` for both eras: a 2026-07-28 client (SDK v2 Client
// pinned to 2026-07-28, and raw JSON-RPC) of a 2025 server (SDK v1 fixture, streamable HTTP
// and SSE) gets discover, the envelope checks, `resultType`, listen and everything the server
// has, as direct; of a 2026 server (SDK v2 fixture) the same, with its input_required rounds
// passed through and the retries reaching the server. A 2025 client of a 2025 server keeps the
// pipe. (A 2025 client of a 2026 server: eraUpstream.test.ts.)
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { CLI, connectProxy, ensureBuilt, FIXTURE, startHttpFixture } from '../../helpers/proxyCli.js';
import { MODERN_FIXTURE, startModernHttp } from '../../helpers/modernFixture.js';
import { closeModernClients, envelope, RawLines, scenario, stdioClient } from '../../helpers/modernClient.js';
import { waitFor } from '../../helpers/waitFor.js';
import { text } from '../../helpers/toolText.js';

const node = process.execPath;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await closeModernClients();
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function legacyRemote(kind: 'http' | 'sse') {
  const server = await startHttpFixture(kind, { name: 'old' });
  cleanups.push(server.stop);
  return server.url;
}

async function modernRemote() {
  const server = await startModernHttp('m');
  cleanups.push(server.stop);
  return server.url;
}

const convertArgs = (url: string, ...extra: string[]) => [CLI, 'convert', url, '--no-watchdog', ...extra];

describe.each(['http', 'sse'] as const)('convert of a 2025 server over %s, 2026-07-28 client', (kind) => {
  it('gets discover and every tool, resource and prompt as direct', async () => {
    const want = await scenario(await stdioClient(node, [FIXTURE, '--name', 'old'], 'auto'), 'fixture://info');
    const client = await stdioClient(
      node,
      convertArgs(await legacyRemote(kind), '--transport', kind),
      { pin: '2026-07-28' },
      { sampling: {} },
    );
    expect(client.getProtocolEra()).toBe('modern');
    const d = client.getDiscoverResult()!;
    expect(d.supportedVersions).toContain('2026-07-28');
    expect((d._meta as Record<string, { name: string }>)['io.modelcontextprotocol/serverInfo']!.name).toBe('old');
    expect(d.capabilities.tools).toBeDefined();
    expect(await scenario(client, 'fixture://info')).toEqual(want);
    const progress: number[] = [];
    await client.callTool(
      { name: 'slow', arguments: { ms: 100, steps: 3 } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(progress).toEqual([1, 2, 3]);
    // The server's mid-call sampling request: the hub holds the call and asks in input_required (heldCall.ts).
    client.setRequestHandler('sampling/createMessage', async () => ({
      role: 'assistant',
      model: 'm',
      content: { type: 'text', text: 'yes' },
    }));
    expect(text(await client.callTool({ name: 'sample', arguments: { prompt: 'q' } }))).toBe('sampled: yes');
  });
});

describe('convert of a 2025 server, raw 2026-07-28 JSON-RPC', () => {
  it('answers discover, checks the envelope, marks each result and relays list changes on listen', async () => {
    const raw = new RawLines(node, convertArgs(await legacyRemote('http')));
    const d = await raw.request('server/discover', {});
    expect(d.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    expect(d.result.supportedVersions).toContain('2026-07-28');
    const meta = envelope();
    const list = await raw.request('tools/list', { _meta: meta });
    expect(list.result.resultType).toBe('complete');
    // The wire carries the server's tool fields as they are (2025-11-25 `execution` included).
    expect(list.result.tools.find((t: { name: string }) => t.name === 'echo')).toMatchObject({
      execution: { taskSupport: 'forbidden' },
    });
    const call = await raw.request('tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: meta });
    expect(call.result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'x' }] });
    expect((await raw.request('tools/list', {})).error.code).toBe(-32602);
    expect((await raw.request('ping', { _meta: meta })).error.code).toBe(-32601);
    raw.send({
      jsonrpc: '2.0',
      id: 'listen',
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true }, _meta: meta },
    });
    await waitFor(
      () => raw.messages.find((m) => m.method === 'notifications/subscriptions/acknowledged'),
      5_000,
      'the listen acknowledgement',
    );
    await raw.request('tools/call', { name: 'add_tool', arguments: { id: 'later' }, _meta: meta });
    const changed = await waitFor(
      () => raw.messages.find((m) => m.method === 'notifications/tools/list_changed'),
      10_000,
      'tools list_changed',
    );
    expect(changed.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('listen');
    const names = (await raw.request('tools/list', { _meta: meta })).result.tools.map((t: { name: string }) => t.name);
    expect(names).toContain('later');
  });

  it('applies the tool filters to a 2026 client as to a 2025 one', async () => {
    const raw = new RawLines(node, convertArgs(await legacyRemote('http'), '--deny-tools', 'add_tool'));
    const meta = envelope();
    const names = (await raw.request('tools/list', { _meta: meta })).result.tools.map((t: { name: string }) => t.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('add_tool');
    // Refused as a tool result the model reads (hub/policyRefusal.ts).
    const refused = await raw.request('tools/call', { name: 'add_tool', arguments: { id: 'x' }, _meta: meta });
    expect(refused.result.isError).toBe(true);
    expect(refused.result.content[0].text).toMatch(/^Tool add_tool is not allowed by the proxy configuration/);
  });

  it('answers a lone 2026 request followed by the end of input (echo request | convert)', async () => {
    const raw = new RawLines(node, convertArgs(await legacyRemote('http')));
    const id = 'lone';
    raw.send({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'z' }, _meta: envelope() },
    });
    raw.child.stdin!.end();
    const reply = await waitFor(
      () => raw.messages.find((m) => m.id === id),
      15_000,
      `the answer (stderr: ${raw.stderr.slice(-400)})`,
    );
    expect(reply.result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'z' }] });
  });

  it('a 2025 client keeps the pipe: the server answers its initialize itself', async () => {
    const url = await legacyRemote('http');
    const h = await connectProxy(['convert', url, '--no-watchdog']);
    cleanups.push(() => h.close());
    expect(h.client.getServerVersion()?.name).toBe('old');
    expect(text(await h.client.callTool({ name: 'echo', arguments: { text: 'p' } }))).toBe('p');
    await waitFor(
      () => h.stderr.some((l) => /exposing .* \(streamable HTTP\) over stdio/.test(l)),
      5_000,
      "the pipe's start line",
    );
    expect(h.stderr.join('\n')).not.toMatch(/one-server hub/);
  });
});

describe('convert of a 2026 server, 2026-07-28 client', () => {
  function answerInput(client: Client): void {
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { ok: true } }));
    client.setRequestHandler('sampling/createMessage', async () => ({
      role: 'assistant',
      model: 'm',
      content: { type: 'text', text: 'forty-two' },
    }));
    client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
  }

  it("gets every tool, resource and prompt as direct, and the server's input_required rounds (SDK v2 client)", async () => {
    const want = await scenario(await stdioClient(node, [MODERN_FIXTURE, '--name', 'm']), 'fixture://hello');
    const client = await stdioClient(
      node,
      convertArgs(await modernRemote()),
      { pin: '2026-07-28' },
      { elicitation: {}, sampling: {}, roots: {} },
    );
    expect(client.getDiscoverResult()!.instructions).toBe('m: echo and add things.');
    expect(await scenario(client, 'fixture://hello')).toEqual(want);
    answerInput(client);
    // A `--url` convert declares no capabilities of its own: the client's envelope is what the server sees.
    expect(text(await client.callTool({ name: 'confirm', arguments: { what: 'go' } }))).toBe(
      'go: first=true second=true',
    );
    expect(text(await client.callTool({ name: 'sample', arguments: { prompt: 'q' } }))).toBe('model said: forty-two');
    expect(text(await client.callTool({ name: 'roots', arguments: {} }))).toBe('file:///work');
  });

  it('passes each input_required round and the cache hints unchanged (raw JSON-RPC, convert beside direct)', async () => {
    const rounds = async (raw: RawLines) => {
      const meta = envelope({ elicitation: {} });
      const call = (extra: Record<string, unknown>) =>
        raw.request('tools/call', { name: 'confirm', arguments: { what: 'go' }, _meta: meta, ...extra });
      const first = await call({});
      const second = await call({
        inputResponses: { first: { action: 'accept', content: { ok: true } } },
        requestState: first.result?.requestState,
      });
      const last = await call({
        inputResponses: { second: { action: 'accept', content: { ok: false } } },
        requestState: second.result?.requestState,
      });
      const read = await raw.request('resources/read', { uri: 'fixture://cached', _meta: meta });
      return [first.result, second.result, last.result, read.result] as Record<string, unknown>[];
    };
    const direct = await rounds(new RawLines(node, [MODERN_FIXTURE, '--name', 'm']));
    const converted = await rounds(new RawLines(node, convertArgs(await modernRemote())));
    expect(direct[0]).toMatchObject({ resultType: 'input_required', requestState: 'round-1' });
    expect(converted).toEqual(direct);
    expect(text(converted[2])).toBe('go: first=true second=false');
    expect(converted[3]).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
  });
});
