// Held calls (hub/heldCall.ts) of several 2026-07-28 clients at once on one 2025-11-25 stdio
// server behind the bridge's stateless route: each server question reaches only the client
// whose call asked it (the stdio wire does not say which call a request belongs to:
// hub/askingGate.ts, which also bounds a call's wait for its turn), a requestState is
// redeemed by one retry at a time, and one client's many held calls end its own oldest,
// never another client's (hub/heldInputTable.ts).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ensureBuilt } from '../../../helpers/proxyCli.js';
import { FIXTURES } from '../../../helpers/paths.js';
import { waitFor } from '../../../helpers/waitFor.js';
import { cleanupBridges, startBridge, type BridgeProcess } from '../../../helpers/bridgeProcess.js';

const ASKING = join(FIXTURES, 'askingServer.mjs');
const asking = {
  command: process.execPath,
  args: [ASKING],
  clientCapabilities: { elicitation: true, sampling: true, roots: true },
};
const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await cleanupBridges();
});

type Json = Record<string, any>;
const envelope = (client: string): Json => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: client, version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
});

/** A raw 2026-07-28 `tools/call` POST on `/mcp/a` as `client`; `extra` goes into params (`_meta` merged into the envelope). */
function post(
  b: BridgeProcess,
  client: string,
  id: number,
  name: string,
  args: Json,
  extra: Json = {},
  signal?: AbortSignal,
): Promise<Response> {
  const { _meta, ...rest } = extra;
  return fetch(`${b.url}/mcp/a`, {
    method: 'POST',
    signal,
    headers: {
      ...b.auth,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args, ...rest, _meta: { ...envelope(client), ..._meta } },
    }),
  });
}

/** The JSON-RPC messages of an answer, one JSON body or an SSE stream, as they arrive. */
async function* messages(res: Response): AsyncGenerator<Json> {
  if (!res.headers.get('content-type')?.includes('text/event-stream')) return yield (await res.json()) as Json;
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body! as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const data = buf
        .slice(0, end)
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      buf = buf.slice(end + 2);
      if (data) yield JSON.parse(data) as Json;
    }
  }
}

const accept = { action: 'accept' as const, content: { ok: true } };

describe('held calls of several 2026 clients on one 2025 stdio server', () => {
  it('16 clients calling an asking tool at once each get their own questions, and every call completes', async () => {
    const b = await startBridge({ config: { mcpServers: { a: asking } } });
    const clients = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const asked: string[] = [];
        // All alike to the proxy: same clientInfo, same capabilities; only the call tells them apart.
        const client = new Client(
          { name: 'held-many', version: '1' },
          { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: {} } },
        );
        client.setRequestHandler('elicitation/create', async (r) => {
          asked.push(r.params.message);
          return accept;
        });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${b.url}/mcp/a`), { requestInit: { headers: b.auth } }),
        );
        cleanups.push(() => client.close().catch(() => undefined));
        return { client, asked, what: `job${i}` };
      }),
    );
    const results = await Promise.all(
      clients.map(({ client, what }) =>
        client.callTool({ name: 'confirm', arguments: { what } }, { timeout: 20_000 }).then(
          (r) => (r as Json).content[0].text as string,
          (e: Error) => `failed: ${e.message}`,
        ),
      ),
    );
    expect(results).toEqual(clients.map(({ what }) => `${what}: first=true second=true`));
    for (const { asked, what } of clients) expect(asked).toEqual([`Really ${what}?`, `Sure about ${what}?`]);
  });

  it('a requestState is redeemed by one retry: a second one while the first waits is refused at once, and the first goes on', async () => {
    const b = await startBridge({ config: { mcpServers: { a: asking } } });
    const first = (await (
      await post(b, 'c', 1, 'ask_then_work', { ms: 1500 }, { _meta: { progressToken: 'first' } })
    ).json()) as Json;
    expect(first.result.resultType).toBe('input_required');
    const retry = {
      inputResponses: { [Object.keys(first.result.inputRequests)[0]!]: accept },
      requestState: first.result.requestState,
    };

    const stop = new AbortController();
    cleanups.push(() => stop.abort());
    const a = messages(
      await post(b, 'c', 2, 'ask_then_work', { ms: 1500 }, { ...retry, _meta: { progressToken: 'a' } }, stop.signal),
    );
    // The first retry waits on the server's call: its progress is arriving.
    expect((await a.next()).value).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'a' } });

    const second = await post(b, 'c', 3, 'ask_then_work', { ms: 1500 }, { ...retry, _meta: { progressToken: 'b' } });
    expect(second.status).toBe(400);
    expect(((await second.json()) as Json).error).toEqual({
      code: -32602,
      message: 'Invalid params: requestState was already used by a retry that is still waiting for the call',
    });

    let last: Json | undefined;
    for await (const m of a) last = m;
    expect(last).toMatchObject({ id: 2, result: { resultType: 'complete', content: [{ text: 'worked' }] } });
    const outcome = (await (await post(b, 'c', 4, 'outcome', {})).json()) as Json;
    expect(JSON.parse(outcome.result.content[0].text)).toMatchObject({ last: 'answered', cancelled: false });
  });

  it("one client's many held calls end its own oldest, never another client's", async () => {
    const b = await startBridge({ config: { mcpServers: { a: asking } } });
    const v1 = (await (await post(b, 'victim', 1, 'confirm', { what: 'mine' })).json()) as Json;
    expect(v1.result.resultType).toBe('input_required');

    // 260 calls of another client, all at once, the victim's call still held.
    const stop = new AbortController();
    cleanups.push(() => stop.abort());
    const greedy: (Json | undefined)[] = [];
    for (let i = 0; i < 260; i++) {
      void post(b, 'greedy', 100 + i, 'confirm', { what: `g${i}` }, {}, stop.signal)
        .then((r) => r.json() as Promise<Json>)
        .then(
          (m) => (greedy[i] = m),
          () => undefined,
        );
    }
    const ended = () =>
      greedy.filter((m) =>
        /this client had more than 64 calls held by the proxy; its oldest was ended/.test(m?.error?.message ?? ''),
      ).length;
    // Its own oldest 196 end (the rest wait behind the victim's call); were they held as they came, all 260 would be answered.
    const answered = () => greedy.filter(Boolean).length;
    await waitFor(
      () => ended() >= 260 - 64 || answered() === 260,
      15_000,
      () => `the greedy client's oldest calls to end (${answered()} answered, ${ended()} ended)`,
    );

    const v2 = (await (
      await post(
        b,
        'victim',
        2,
        'confirm',
        { what: 'mine' },
        {
          inputResponses: { [Object.keys(v1.result.inputRequests)[0]!]: accept },
          requestState: v1.result.requestState,
        },
      )
    ).json()) as Json;
    expect(v2.result?.resultType).toBe('input_required');
    const v3 = (await (
      await post(
        b,
        'victim',
        3,
        'confirm',
        { what: 'mine' },
        {
          inputResponses: { [Object.keys(v2.result.inputRequests)[0]!]: accept },
          requestState: v2.result.requestState,
        },
      )
    ).json()) as Json;
    expect(v3.result).toMatchObject({ resultType: 'complete', content: [{ text: 'mine: first=true second=true' }] });
  });
  it("a call that may ask waits for its turn behind another client's, for at most its own timeout", async () => {
    const b = await startBridge({ config: { mcpServers: { a: { ...asking, toolTimeouts: { sample: 1000 } } } } });
    const held = (await (await post(b, 'first', 1, 'confirm', { what: 'x' })).json()) as Json;
    expect(held.result.resultType).toBe('input_required');
    // The server would not say whose its sampling request is: the second call is not sent while the first can still ask.
    const waited = (await (await post(b, 'second', 2, 'sample', { prompt: 'p' })).json()) as Json;
    expect(waited.error).toEqual({
      code: -32603,
      message:
        'server "a" is running another call that may ask for client input, and this call waited 1000 ms for its turn',
    });
    const retry = {
      inputResponses: { [Object.keys(held.result.inputRequests)[0]!]: accept },
      requestState: held.result.requestState,
    };
    const next = (await (await post(b, 'first', 3, 'confirm', { what: 'x' }, retry)).json()) as Json;
    expect(Object.values(next.result.inputRequests)).toEqual([
      { method: 'elicitation/create', params: expect.objectContaining({ message: 'Sure about x?' }) },
    ]);
  });
});
