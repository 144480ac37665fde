// Translation between eras (issue 18 point 3, second direction): a 2026-07-28 client calling
// a tool of a 2025-11-25 server that sends elicitation/create, sampling/createMessage or
// roots/list mid-call gets an `input_required` result with those requests and a requestState
// the proxy verifies; its retry with inputResponses resumes the held server call; a retry
// that never comes releases it after the call's timeout.
// Transparency: the same SDK v2 client (same handlers) gets the same results from the 2025
// server direct (the client falls back to 2025-11-25 there) and through the proxy (2026-07-28,
// the proxy translating), on the stdio aggregation and on the bridge's stateless HTTP.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ensureBuilt } from '../../../helpers/proxyCli.js';
import { FIXTURES } from '../../../helpers/paths.js';
import { waitNoProcess } from '../../../helpers/processGone.js';
import { waitFor } from '../../../helpers/waitFor.js';
import { cleanupBridges, startBridge, type BridgeProcess } from '../../../helpers/bridgeProcess.js';
import { closeModernClients, proxyArgs, stdioClient, type Negotiation } from '../../../helpers/modernClient.js';

const ASKING = join(FIXTURES, 'askingServer.mjs');
const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await closeModernClients();
  for (const c of cleanups.splice(0).reverse()) await c();
  await cleanupBridges();
});

// The entry declares what the proxy may route to its clients (none by default: config/clientCapabilities.ts).
const asking = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [ASKING],
  clientCapabilities: { elicitation: true, sampling: true, roots: true },
  ...extra,
});
const CAPS = { elicitation: {}, sampling: {}, roots: {} };
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': CAPS,
};
type Json = Record<string, any>;

/** Handlers answering every kind of input the same way each time (for a client's `setup`). */
const answering = (asked: string[]) => (client: Client) => {
  let n = 0;
  client.setRequestHandler('elicitation/create', async (r) => {
    asked.push(`elicit:${r.params.message}`);
    const content: Record<string, string | boolean> =
      r.params.message === 'Your name?' ? { name: 'Ada' } : { ok: ++n === 1 };
    return { action: 'accept', content };
  });
  client.setRequestHandler('sampling/createMessage', async (r) => {
    asked.push(`sample:${(r.params.messages[0]!.content as { text: string }).text}`);
    return { role: 'assistant', content: { type: 'text', text: 'green' }, model: 'test', stopReason: 'endTurn' };
  });
  client.setRequestHandler('roots/list', async () => {
    asked.push('roots');
    return { roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] };
  });
};

/** An SDK v2 client with those handlers. */
function answeringClient(mode: Negotiation, asked: string[]): Client {
  const client = new Client({ name: 'held-test', version: '1' }, { versionNegotiation: { mode }, capabilities: CAPS });
  answering(asked)(client);
  return client;
}

const heldClient = (args: string[], mode: Negotiation, asked: string[]) =>
  stdioClient(process.execPath, args, mode, CAPS, { setup: answering(asked) });

/** The scenario every path must answer alike: each tool, what it asked, and the prompt. */
async function scenario(client: Client, prefix: string) {
  const asked: string[] = [];
  const texts: string[] = [];
  for (const [name, args] of [
    ['confirm', { what: 'deploy' }],
    ['sample', { prompt: 'capital of France?' }],
    ['roots', {}],
    ['both', {}],
  ] as const) {
    const res = (await client.callTool({ name: prefix + name, arguments: args })) as Json;
    texts.push(res.content[0].text);
    expect(res.resultType).toBeUndefined();
  }
  const prompt = await client.getPrompt({ name: prefix + 'confirm_prompt', arguments: { topic: 'tea' } });
  texts.push((prompt.messages[0]!.content as { text: string }).text);
  return { asked, texts };
}

async function raw(b: BridgeProcess, path: string, id: number, method: string, params: Json) {
  const res = await fetch(b.url + path, {
    method: 'POST',
    headers: {
      ...b.auth,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': String(params.name),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: { ...params, _meta: { ...ENVELOPE, ...(params._meta ?? {}) } },
    }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe('a 2026 client, a 2025 server asking for input mid-call', () => {
  it('gets the same results through the stdio aggregation (2026-07-28) as direct (2025-11-25)', async () => {
    const askedDirect: string[] = [];
    const direct = await heldClient([ASKING], 'auto', askedDirect);
    expect(direct.getProtocolEra()).toBe('legacy');
    const want = await scenario(direct, '');

    const askedProxy: string[] = [];
    const viaProxy = await heldClient(proxyArgs({ a: asking() }), { pin: '2026-07-28' }, askedProxy);
    expect(viaProxy.getProtocolEra()).toBe('modern');
    const got = await scenario(viaProxy, 'a__');
    expect(got.texts).toEqual(want.texts);
    expect(askedProxy).toEqual(askedDirect);
    expect(want.texts).toEqual([
      'deploy: first=true second=false',
      'model said: green',
      'file:///a,file:///b',
      'Ada likes green',
      'Write about tea',
    ]);
  });

  it('on stdio the 2026 client is never sent a server-to-client request: it gets input_required, then the result', async () => {
    const child = spawn(process.execPath, proxyArgs({ a: asking() }), { stdio: ['pipe', 'pipe', 'ignore'] });
    cleanups.push(async () => {
      child.kill('SIGTERM');
      if (child.pid) await waitNoProcess(child.pid, 8000);
    });
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const next = async () => JSON.parse(String((await lines.next()).value)) as Json;
    const call = (id: number, extra: Json = {}) =>
      child.stdin!.write(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'a__roots', arguments: {}, _meta: ENVELOPE, ...extra },
        }) + '\n',
      );
    call(1);
    const first = await next();
    expect(first).toMatchObject({ id: 1, result: { resultType: 'input_required' } });
    expect(first.method).toBeUndefined();
    const [key] = Object.keys(first.result.inputRequests);
    expect(first.result.inputRequests[key!]).toEqual({ method: 'roots/list' });
    call(2, { inputResponses: { [key!]: { roots: [{ uri: 'file:///c' }] } }, requestState: first.result.requestState });
    expect(await next()).toMatchObject({ id: 2, result: { resultType: 'complete', content: [{ text: 'file:///c' }] } });

    // Progress after a round goes to the retry's own token; cancelling the retry cancels the server's call.
    const work = (id: number, token: string, extra: Json = {}) =>
      child.stdin!.write(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            name: 'a__ask_then_work',
            arguments: { ms: 20_000 },
            _meta: { ...ENVELOPE, progressToken: token },
            ...extra,
          },
        }) + '\n',
      );
    work(3, 'first');
    const asked = (await next()).result;
    work(4, 'second', {
      inputResponses: { [Object.keys(asked.inputRequests)[0]!]: { action: 'accept', content: { ok: true } } },
      requestState: asked.requestState,
    });
    const progress = await next();
    expect(progress).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'second' } });
    child.stdin!.write(
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4, reason: 'user' } }) +
        '\n',
    );
    // Asks the server what became of its call until it saw the cancel.
    let id = 5;
    const outcome = async () => {
      const asked = id++;
      child.stdin!.write(
        JSON.stringify({
          jsonrpc: '2.0',
          id: asked,
          method: 'tools/call',
          params: { name: 'a__outcome', arguments: {}, _meta: ENVELOPE },
        }) + '\n',
      );
      let m = await next();
      while (m.id !== asked) m = await next();
      return JSON.parse(m.result.content[0].text) as { last: string; cancelled: boolean };
    };
    const seen = await waitFor(
      async () => {
        const o = await outcome();
        return o.cancelled && o;
      },
      15_000,
      'the server to see the cancel',
    );
    expect(seen).toMatchObject({ last: 'answered', cancelled: true });
  });

  it('gets the same results through the bridge /mcp/<id> and /mcp (stateless HTTP, a session per request)', async () => {
    const b = await startBridge({ config: { mcpServers: { a: asking() } } });
    for (const [path, prefix] of [
      ['/mcp/a', ''],
      ['/mcp', 'a__'],
    ] as const) {
      const asked: string[] = [];
      const client = answeringClient({ pin: '2026-07-28' }, asked);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(b.url + path), { requestInit: { headers: b.auth } }),
      );
      cleanups.push(() => client.close().catch(() => undefined));
      expect(client.getProtocolEra()).toBe('modern');
      expect((await scenario(client, prefix)).texts[3]).toBe('Ada likes green');
      expect(asked).toEqual([
        'elicit:Really deploy?',
        'elicit:Sure about deploy?',
        'sample:capital of France?',
        'roots',
        'elicit:Your name?',
        'sample:a colour',
        'elicit:Write about tea?',
      ]);
    }
  });

  it('the stdio aggregation served over HTTP (--transport http) serves a 2026 client the same way', async () => {
    const child = spawn(process.execPath, [...proxyArgs({ a: asking() }), '--transport', 'http', '--port', '0'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    cleanups.push(async () => {
      child.kill('SIGTERM');
      if (child.pid) await waitNoProcess(child.pid, 8000);
    });
    const line = String((await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next()).value);
    const ready = JSON.parse(line) as { url: string; token: string };
    const b = { url: ready.url, auth: { authorization: `Bearer ${ready.token}` } } as unknown as BridgeProcess;
    const r1 = (await raw(b, '/mcp', 1, 'tools/call', { name: 'a__roots', arguments: {} })).body.result;
    expect(r1).toMatchObject({ resultType: 'input_required', inputRequests: { 'roots-1': { method: 'roots/list' } } });
    const done = await raw(b, '/mcp', 2, 'tools/call', {
      name: 'a__roots',
      arguments: {},
      inputResponses: { 'roots-1': { roots: [{ uri: 'file:///z' }] } },
      requestState: r1.requestState,
    });
    expect(done.body.result).toMatchObject({ resultType: 'complete', content: [{ text: 'file:///z' }] });
  });

  it('asks requests sent together in one input_required, and refuses a tampered, replayed or foreign requestState', async () => {
    const b = await startBridge({ config: { mcpServers: { a: asking() } } });
    const first = await raw(b, '/mcp/a', 1, 'tools/call', { name: 'both', arguments: {} });
    expect(first.status).toBe(200);
    const r1 = first.body.result;
    expect(r1.resultType).toBe('input_required');
    expect(
      Object.values(r1.inputRequests)
        .map((x: any) => x.method)
        .sort(),
    ).toEqual(['elicitation/create', 'sampling/createMessage']);
    const keys = Object.keys(r1.inputRequests);
    const elicitKey = keys.find((k) => r1.inputRequests[k].method === 'elicitation/create')!;
    const sampleKey = keys.find((k) => k !== elicitKey)!;
    const answers = {
      [elicitKey]: { action: 'accept', content: { name: 'Bo' } },
      [sampleKey]: { role: 'assistant', content: { type: 'text', text: 'red' }, model: 'm' },
      extra: { ignored: true },
    };
    const tampered = await raw(b, '/mcp/a', 2, 'tools/call', {
      name: 'both',
      arguments: {},
      inputResponses: answers,
      requestState: r1.requestState + '-TAMPERED',
    });
    expect(tampered.status).toBe(400);
    expect(tampered.body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/requestState/) });
    const foreign = await raw(b, '/mcp/a', 3, 'tools/call', {
      name: 'both',
      arguments: {},
      inputResponses: answers,
      requestState: r1.requestState,
      _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'someone-else', version: '1' } },
    });
    expect(foreign.body.error).toMatchObject({
      code: -32602,
      message: 'Invalid params: requestState was issued to another client',
    });
    const otherCall = await raw(b, '/mcp/a', 4, 'tools/call', {
      name: 'confirm',
      arguments: { what: 'x' },
      inputResponses: answers,
      requestState: r1.requestState,
    });
    expect(otherCall.body.error.message).toBe('Invalid params: requestState belongs to another request');
    const done = await raw(b, '/mcp/a', 5, 'tools/call', {
      name: 'both',
      arguments: {},
      inputResponses: answers,
      requestState: r1.requestState,
    });
    expect(done.body.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Bo likes red' }],
    });
    const replay = await raw(b, '/mcp/a', 6, 'tools/call', {
      name: 'both',
      arguments: {},
      inputResponses: answers,
      requestState: r1.requestState,
    });
    expect(replay.body.error.message).toBe('Invalid params: requestState refers to a call that has ended');
  });

  it('asks again for an answer the retry left out, refuses a malformed one, and asks only what the envelope declares', async () => {
    const b = await startBridge({ config: { mcpServers: { a: asking() } } });
    const r1 = (await raw(b, '/mcp/a', 1, 'tools/call', { name: 'both', arguments: {} })).body.result;
    const [k1, k2] = Object.keys(r1.inputRequests);
    const bad = await raw(b, '/mcp/a', 2, 'tools/call', {
      name: 'both',
      arguments: {},
      inputResponses: { [k1!]: 12345 },
      requestState: r1.requestState,
    });
    expect(bad.body.error.code).toBe(-32602);
    const wrongKind = await raw(b, '/mcp/a', 3, 'tools/call', {
      name: 'both',
      arguments: {},
      inputResponses: { [k1!]: { nope: 1 } },
      requestState: r1.requestState,
    });
    expect(wrongKind.body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/is not a result of/) });
    const answerFor = (k: string) =>
      r1.inputRequests[k].method === 'elicitation/create'
        ? { action: 'accept', content: { name: 'Cy' } }
        : { role: 'assistant', content: { type: 'text', text: 'blue' }, model: 'm' };
    const partial = (
      await raw(b, '/mcp/a', 4, 'tools/call', {
        name: 'both',
        arguments: {},
        inputResponses: { [k1!]: answerFor(k1!) },
        requestState: r1.requestState,
      })
    ).body.result;
    expect(partial.resultType).toBe('input_required');
    expect(Object.keys(partial.inputRequests)).toEqual([k2]);
    const done = await raw(b, '/mcp/a', 5, 'tools/call', {
      name: 'both',
      arguments: {},
      inputResponses: { [k2!]: answerFor(k2!) },
      requestState: partial.requestState,
    });
    expect(done.body.result.content[0].text).toBe('Cy likes blue');

    // Only sampling declared: the elicitation is refused toward the server, never asked.
    const samplingOnly = { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };
    const s1 = (await raw(b, '/mcp/a', 6, 'tools/call', { name: 'both', arguments: {}, _meta: samplingOnly })).body
      .result;
    expect(Object.values(s1.inputRequests).map((x: any) => x.method)).toEqual(['sampling/createMessage']);
    const [sk] = Object.keys(s1.inputRequests);
    const s2 = await raw(b, '/mcp/a', 7, 'tools/call', {
      name: 'both',
      arguments: {},
      _meta: samplingOnly,
      inputResponses: { [sk!]: { role: 'assistant', content: { type: 'text', text: 'blue' }, model: 'm' } },
      requestState: s1.requestState,
    });
    expect(s2.body.result.content[0].text).toBe('? likes blue');
    // A server that fails without what the client did not declare: -32021 naming it (HTTP 400).
    const needs = await raw(b, '/mcp/a', 8, 'tools/call', {
      name: 'must_sample',
      arguments: {},
      _meta: { 'io.modelcontextprotocol/clientCapabilities': {} },
    });
    expect(needs.status).toBe(400);
    expect(needs.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
  });

  it('a retry that never comes releases the server call after the call timeout', async () => {
    const b = await startBridge({ config: { mcpServers: { a: asking({ timeoutMs: 1500 }) } } });
    const r1 = (await raw(b, '/mcp/a', 1, 'tools/call', { name: 'confirm', arguments: { what: 'x' } })).body.result;
    expect(r1.resultType).toBe('input_required');
    // Asks the server what became of its request until the call timeout released it.
    let id = 2;
    const seen = await waitFor(
      async () => {
        const outcome = (await raw(b, '/mcp/a', id++, 'tools/call', { name: 'outcome', arguments: {} })).body.result;
        const o = JSON.parse(outcome.content[0].text) as { last: string; cancelled: boolean };
        return o.last !== 'none' && o.cancelled && o;
      },
      15_000,
      'the held call to be released',
      200,
    );
    expect(seen.last).toMatch(/^error: .*did not retry within 1500 ms/);
    expect(seen.cancelled).toBe(true);
    const late = await raw(b, '/mcp/a', id, 'tools/call', {
      name: 'confirm',
      arguments: { what: 'x' },
      inputResponses: { [Object.keys(r1.inputRequests)[0]!]: { action: 'accept', content: { ok: true } } },
      requestState: r1.requestState,
    });
    expect(late.body.error.code).toBe(-32602);
  });
});
