// Server-to-client request routing (docs/hub.md, the hub's rules, and
// serverRequestRouter.ts), over in-memory transports: the relation by upstream id or
// progress token first, then the most recently started call, then the most recently
// active session, always one that declared the capability; roots/list with none gets an
// empty list, sampling/elicitation -32601; a server's cancel reaches the session.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, settle, startKit, until, type FakeClient, type Kit } from './hubKit.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const SAMPLING = { sampling: {} };
const SAMPLE = { messages: [], maxTokens: 1 };
/** Sessions are ordered by millisecond timestamps: waiting this long makes the next one later (a slow machine only widens the gap). */
const nextMillisecond = () => new Promise((r) => setTimeout(r, 3));

function slowServer(): FakeServer {
  const s = new FakeServer('a');
  s.tools = [{ name: 'work', inputSchema: { type: 'object' } }];
  s.handlers['tools/call'] = () => 'no-answer';
  return s;
}

/** Starts a call from `c` and returns the upstream request it became. */
async function callFrom(a: FakeServer, c: FakeClient, meta?: Record<string, unknown>) {
  const before = a.received('tools/call').length;
  void c.peer.request('tools/call', { name: 'a__work', arguments: {}, ...(meta ? { _meta: meta } : {}) });
  await until(() => a.received('tools/call').length === before + 1, 'call upstream');
  return a.received('tools/call')[before];
}

function answeredBy(c: FakeClient, name: string): void {
  c.answer = () => ({ model: name, role: 'assistant', content: { type: 'text', text: name } });
}

describe('server-to-client requests', () => {
  it('go to the session whose call the wire names (upstream id), even when another call is more recent', async () => {
    const a = slowServer();
    kit = await startKit([a]);
    const c1 = await kit.connect({}, SAMPLING);
    const c2 = await kit.connect({}, SAMPLING);
    answeredBy(c1, 'c1');
    answeredBy(c2, 'c2');
    const up1 = await callFrom(a, c1);
    await callFrom(a, c2);
    const res = await a.peer!.request('sampling/createMessage', SAMPLE, { relatedRequestId: up1.id });
    expect(res).toMatchObject({ result: { model: 'c1' } });
    expect(c2.requests).toHaveLength(0);
    expect(c1.requests[0].related).toBe(2); // on c1's call's own stream
  });

  it('go to the session whose qp<n> progress token they carry', async () => {
    const a = slowServer();
    kit = await startKit([a]);
    const c1 = await kit.connect({}, SAMPLING);
    const c2 = await kit.connect({}, SAMPLING);
    answeredBy(c1, 'c1');
    answeredBy(c2, 'c2');
    const up1 = await callFrom(a, c1, { progressToken: 'p' });
    await callFrom(a, c2);
    const token = (up1.params?._meta as Record<string, unknown>).progressToken;
    const res = await a.peer!.request('sampling/createMessage', { ...SAMPLE, _meta: { progressToken: token } });
    expect(res).toMatchObject({ result: { model: 'c1' } });
    expect(c2.requests).toHaveLength(0);
  });

  it('are refused, never substituted, when the related session did not declare the capability', async () => {
    const a = slowServer();
    kit = await startKit([a]);
    const c1 = await kit.connect({}, {});
    const c2 = await kit.connect({}, SAMPLING);
    answeredBy(c2, 'c2');
    const up1 = await callFrom(a, c1);
    const res = await a.peer!.request('sampling/createMessage', SAMPLE, { relatedRequestId: up1.id });
    expect(res).toMatchObject({ error: { code: -32601 } });
    expect(c2.requests).toHaveLength(0);
    expect(c1.requests).toHaveLength(0);
  });

  it('without a relation: the most recently started call in flight goes first', async () => {
    const a = slowServer();
    kit = await startKit([a]);
    const c1 = await kit.connect({}, SAMPLING);
    const c2 = await kit.connect({}, SAMPLING);
    const c3 = await kit.connect({}, SAMPLING); // most recently active, but no call
    answeredBy(c1, 'c1');
    answeredBy(c2, 'c2');
    answeredBy(c3, 'c3');
    await callFrom(a, c1);
    await nextMillisecond();
    await callFrom(a, c2);
    await nextMillisecond();
    await c3.peer.call('ping');
    expect(await a.peer!.request('sampling/createMessage', SAMPLE)).toMatchObject({ result: { model: 'c2' } });
    expect(c2.requests[0].related).toBe(2);
  });

  it('without a relation nor a call in flight: the most recently active capable session', async () => {
    const a = slowServer();
    kit = await startKit([a]);
    const c1 = await kit.connect({}, SAMPLING);
    const c2 = await kit.connect({}, SAMPLING);
    const c3 = await kit.connect({}, {}); // most recent of all, but not capable
    answeredBy(c1, 'c1');
    answeredBy(c2, 'c2');
    await nextMillisecond();
    await c1.peer.call('ping');
    await nextMillisecond();
    await c3.peer.call('ping');
    expect(await a.peer!.request('sampling/createMessage', SAMPLE)).toMatchObject({ result: { model: 'c1' } });
    expect(c1.requests[0].related).toBeUndefined();
    expect(c3.requests).toHaveLength(0);
  });

  it('the capability filter skips a session with a call in flight that did not declare it', async () => {
    const a = slowServer();
    kit = await startKit([a]);
    const capable = await kit.connect({}, SAMPLING);
    const busy = await kit.connect({}, {});
    answeredBy(capable, 'capable');
    await callFrom(a, busy);
    expect(await a.peer!.request('sampling/createMessage', SAMPLE)).toMatchObject({ result: { model: 'capable' } });
    expect(busy.requests).toHaveLength(0);
  });

  it('with no capable session: roots/list gets an empty list, sampling and elicitation -32601', async () => {
    const a = slowServer();
    kit = await startKit([a]);
    const c = await kit.connect({}, {});
    expect(await a.peer!.request('roots/list', undefined)).toMatchObject({ result: { roots: [] } });
    expect(await a.peer!.request('sampling/createMessage', SAMPLE)).toMatchObject({ error: { code: -32601 } });
    expect(
      await a.peer!.request('elicitation/create', { message: 'q', requestedSchema: { type: 'object' } }),
    ).toMatchObject({ error: { code: -32601 } });
    expect(c.requests).toHaveLength(0);
  });

  it('roots/list goes to a session that declared roots and returns its answer', async () => {
    const a = slowServer();
    kit = await startKit([a]);
    const c = await kit.connect({}, { roots: {} });
    c.answer = () => ({ roots: [{ uri: 'file:///w' }] });
    expect(await a.peer!.request('roots/list', undefined)).toMatchObject({ result: { roots: [{ uri: 'file:///w' }] } });
  });

  it('only sessions in scope are candidates', async () => {
    const a = slowServer();
    const b = new FakeServer('b');
    kit = await startKit([a, b]);
    const onB = await kit.connect({ serverId: 'b' }, SAMPLING);
    answeredBy(onB, 'onB');
    expect(await a.peer!.request('sampling/createMessage', SAMPLE)).toMatchObject({ error: { code: -32601 } });
    expect(onB.requests).toHaveLength(0);
  });

  it("a server's cancel of its request reaches the session under the downstream id", async () => {
    const a = slowServer();
    kit = await startKit([a]);
    const c = await kit.connect({}, SAMPLING);
    c.answer = () => 'no-answer';
    let upstreamReqId: number | string | undefined;
    const pending = a.peer!.request('sampling/createMessage', SAMPLE, {}, (h) => void (upstreamReqId = h.id));
    await until(() => c.requests.length === 1, 'request at client');
    await a.peer!.notify('notifications/cancelled', { requestId: upstreamReqId, reason: 'gone' });
    await until(() => c.notesOf('notifications/cancelled').length === 1, 'cancel at client');
    expect(c.notesOf('notifications/cancelled')[0].n.params).toMatchObject({
      requestId: c.requests[0].req.id,
      reason: 'gone',
    });
    // The client's late answer is not relayed to the server.
    await c.peer.respond(c.requests[0].req.id, { model: 'late' });
    const raced = await Promise.race([
      pending,
      settle()
        .then(() => settle())
        .then(() => 'nothing'),
    ]);
    expect(raced).toBe('nothing');
  });
});
