// The hub's multiplexing rules (docs/hub.md, "The hub: sessions, scopes and the
// multiplexing rules"), over in-memory transports: request ids, progress tokens,
// cancellation, subscription reference counts, list_changed versions, log routing.
// Server-to-client request routing is in serverRequests.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, settle, startKit, until, type Kit } from './hubKit.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

function echoServer(id: string): FakeServer {
  const s = new FakeServer(id);
  s.tools = [{ name: 'echo', inputSchema: { type: 'object' } }];
  s.handlers['tools/call'] = (req) => ({
    content: [{ type: 'text', text: String((req.params?.arguments as Record<string, unknown>)?.who) }],
  });
  return s;
}

describe('request ids', () => {
  it("uses the upstream peer's own ids and answers each session under its own id", async () => {
    const a = echoServer('a');
    kit = await startKit([a]);
    const c1 = await kit.connect();
    const c2 = await kit.connect();
    // Both sessions use id 1 (each peer's first request after initialize is id 2: force equal ids).
    const r1 = c1.peer.request('tools/call', { name: 'a__echo', arguments: { who: 'one' } });
    const r2 = c2.peer.request('tools/call', { name: 'a__echo', arguments: { who: 'two' } });
    const [x1, x2] = await Promise.all([r1, r2]);
    expect(x1.id).toBe(x2.id); // same downstream id in both sessions
    expect(x1).toMatchObject({ result: { content: [{ text: 'one' }] } });
    expect(x2).toMatchObject({ result: { content: [{ text: 'two' }] } });
    const upIds = a.received('tools/call').map((r) => r.id);
    expect(new Set(upIds).size).toBe(2); // distinct upstream ids
    expect(upIds).not.toContain(x1.id);
  });
});

describe('progress tokens', () => {
  it("replaces the caller's token by a unique qp<n> upstream and maps progress back to its session only", async () => {
    const a = echoServer('a');
    a.handlers['tools/call'] = () => 'no-answer';
    kit = await startKit([a]);
    const c1 = await kit.connect();
    const c2 = await kit.connect();
    const p1 = c1.peer.request('tools/call', { name: 'a__echo', arguments: {}, _meta: { progressToken: 'tok' } });
    void c2.peer.request('tools/call', { name: 'a__echo', arguments: {}, _meta: { progressToken: 'tok' } });
    await until(() => a.received('tools/call').length === 2, 'two calls upstream');
    const calls = a.received('tools/call');
    const tokens = calls.map((r) => (r.params?._meta as Record<string, unknown>).progressToken);
    for (const t of tokens) expect(t).toMatch(/^qp\d+$/);
    expect(tokens[0]).not.toBe(tokens[1]);
    await a.peer!.notify('notifications/progress', { progressToken: tokens[0], progress: 1, total: 2 });
    await until(() => c1.notesOf('notifications/progress').length === 1, 'progress at c1');
    await settle();
    expect(c2.notesOf('notifications/progress')).toHaveLength(0);
    const got = c1.notesOf('notifications/progress')[0];
    expect(got.n.params).toMatchObject({ progressToken: 'tok', progress: 1, total: 2 });
    await a.peer!.respond(calls[0].id, { content: [] });
    const res = await p1;
    expect(got.related).toBe(res.id); // on the call's own stream
  });

  it("restarts the request's timeout on each progress notification", async () => {
    const a = echoServer('a');
    a.entry = { timeoutMs: 500 };
    a.handlers['tools/call'] = async (req, s) => {
      const token = (req.params?._meta as Record<string, unknown> | undefined)?.progressToken;
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 100));
        if (token !== undefined) await s.peer!.notify('notifications/progress', { progressToken: token, progress: i });
      }
      return { content: [{ type: 'text', text: 'late' }] };
    };
    kit = await startKit([a]);
    const c = await kit.connect();
    // 800 ms of work against a 500 ms timeout: answered only because progress restarts it
    // (every 100 ms, far inside the timeout even when a loaded machine delays the timers).
    const withProgress = await c.peer.request('tools/call', {
      name: 'a__echo',
      arguments: {},
      _meta: { progressToken: 7 },
    });
    expect(withProgress).toMatchObject({ result: { content: [{ text: 'late' }] } });
    const without = await c.peer.request('tools/call', { name: 'a__echo', arguments: {} });
    expect(without).toHaveProperty('error');
  });
});

describe('cancellation', () => {
  it('translates the id upstream, settles the call locally and sends no response for it', async () => {
    const a = echoServer('a');
    a.handlers['tools/call'] = () => 'no-answer';
    kit = await startKit([a]);
    const c = await kit.connect();
    const call = c.peer.request('tools/call', { name: 'a__echo', arguments: {} }, { timeoutMs: 400 });
    await until(() => a.received('tools/call').length === 1, 'call upstream');
    const upstreamId = a.received('tools/call')[0].id;
    const downstreamId = 2; // initialize was 1
    await c.peer.notify('notifications/cancelled', { requestId: downstreamId, reason: 'user' });
    await until(() => a.receivedNotes('notifications/cancelled').length === 1, 'cancel upstream');
    expect(a.receivedNotes('notifications/cancelled')[0].params).toMatchObject({
      requestId: upstreamId,
      reason: 'user',
    });
    // The server answers anyway: nothing reaches the client, whose own timeout settles the call.
    await a.peer!.respond(upstreamId, { content: [{ type: 'text', text: 'too late' }] });
    const res = await call;
    // Only the client's own timeout: no error (nor result) came back for the cancelled call.
    expect(res).toMatchObject({ error: { code: -32001, message: expect.stringContaining('timed out after 400 ms') } });
    expect(JSON.stringify(res)).not.toContain('too late');
  });
});

describe('subscriptions', () => {
  function resourceServer(): FakeServer {
    const s = new FakeServer('r', { resources: { subscribe: true } });
    s.resources = [{ uri: 'mem://x', name: 'x' }];
    s.handlers['resources/subscribe'] = () => ({});
    s.handlers['resources/unsubscribe'] = () => ({});
    return s;
  }

  it('first subscribe goes upstream, later ones do not; updates go to subscribers only; last unsubscribe releases', async () => {
    const r = resourceServer();
    kit = await startKit([r]);
    const c1 = await kit.connect();
    const c2 = await kit.connect();
    const c3 = await kit.connect();
    expect(await c1.peer.request('resources/subscribe', { uri: 'mem://x' })).toHaveProperty('result');
    expect(await c2.peer.request('resources/subscribe', { uri: 'mem://x' })).toHaveProperty('result');
    expect(r.received('resources/subscribe')).toHaveLength(1);
    await r.peer!.notify('notifications/resources/updated', { uri: 'mem://x' });
    await until(() => c2.notesOf('notifications/resources/updated').length === 1, 'update at c2');
    await until(() => c1.notesOf('notifications/resources/updated').length === 1, 'update at c1');
    await settle();
    expect(c3.notesOf('notifications/resources/updated')).toHaveLength(0);
    expect(await c1.peer.request('resources/unsubscribe', { uri: 'mem://x' })).toHaveProperty('result');
    expect(r.received('resources/unsubscribe')).toHaveLength(0);
    await r.peer!.notify('notifications/resources/updated', { uri: 'mem://x' });
    await until(() => c2.notesOf('notifications/resources/updated').length === 2, 'second update at c2');
    await settle();
    expect(c1.notesOf('notifications/resources/updated')).toHaveLength(1);
    expect(await c2.peer.request('resources/unsubscribe', { uri: 'mem://x' })).toHaveProperty('result');
    expect(r.received('resources/unsubscribe')).toHaveLength(1);
  });

  it('a closing session releases its subscriptions (the last one goes upstream)', async () => {
    const r = resourceServer();
    kit = await startKit([r]);
    const c1 = await kit.connect();
    const c2 = await kit.connect();
    await c1.peer.request('resources/subscribe', { uri: 'mem://x' });
    await c2.peer.request('resources/subscribe', { uri: 'mem://x' });
    await c1.peer.close();
    await settle();
    expect(r.received('resources/unsubscribe')).toHaveLength(0);
    await c2.peer.close();
    await until(() => r.received('resources/unsubscribe').length === 1, 'unsubscribe upstream');
    expect(r.received('resources/unsubscribe')[0].params).toMatchObject({ uri: 'mem://x' });
    expect([...kit.hub.sessions]).toHaveLength(0);
  });

  it('a refused first subscribe is not counted: the next subscribe goes upstream again', async () => {
    const r = resourceServer();
    let refuse = true;
    r.handlers['resources/subscribe'] = () => {
      if (refuse) throw new Error('refused');
      return {};
    };
    kit = await startKit([r]);
    const c1 = await kit.connect();
    const c2 = await kit.connect();
    expect(await c1.peer.request('resources/subscribe', { uri: 'mem://x' })).toMatchObject({
      error: { message: 'refused' },
    });
    refuse = false;
    expect(await c2.peer.request('resources/subscribe', { uri: 'mem://x' })).toHaveProperty('result');
    expect(r.received('resources/subscribe')).toHaveLength(2);
    await r.peer!.notify('notifications/resources/updated', { uri: 'mem://x' });
    await until(() => c2.notesOf('notifications/resources/updated').length === 1, 'update at c2');
    await settle();
    expect(c1.notesOf('notifications/resources/updated')).toHaveLength(0);
    await c2.peer.request('resources/unsubscribe', { uri: 'mem://x' });
    expect(r.received('resources/unsubscribe')).toHaveLength(1);
  });
});

describe('list_changed', () => {
  it('tells only sessions that listed before the change, once per tick', async () => {
    const a = echoServer('a');
    kit = await startKit([a]);
    const listed = await kit.connect();
    const never = await kit.connect();
    await listed.peer.call('tools/list');
    a.tools = [...a.tools, { name: 'more', inputSchema: { type: 'object' } }];
    await a.peer!.notify('notifications/tools/list_changed');
    await a.peer!.notify('notifications/tools/list_changed');
    await until(() => listed.notesOf('notifications/tools/list_changed').length >= 1, 'list_changed');
    await settle();
    await settle();
    expect(listed.notesOf('notifications/tools/list_changed')).toHaveLength(1);
    expect(never.notesOf('notifications/tools/list_changed')).toHaveLength(0);
    const tools = (await listed.peer.call('tools/list')).tools as { name: string }[];
    expect(tools.map((t) => t.name)).toEqual(['a__echo', 'a__more']);
  });

  it('does not tell a session whose scope is another server', async () => {
    const a = echoServer('a');
    const b = echoServer('b');
    kit = await startKit([a, b]);
    const onB = await kit.connect({ serverId: 'b' });
    const all = await kit.connect();
    await onB.peer.call('tools/list');
    await all.peer.call('tools/list');
    await a.peer!.notify('notifications/tools/list_changed');
    await until(() => all.notesOf('notifications/tools/list_changed').length === 1, 'list_changed at aggregate');
    await settle();
    expect(onB.notesOf('notifications/tools/list_changed')).toHaveLength(0);
  });
});

describe('log messages', () => {
  it('go to every session in scope, on the stream of its call in flight on that server', async () => {
    const a = echoServer('a');
    a.handlers['tools/call'] = () => 'no-answer';
    const b = echoServer('b');
    kit = await startKit([a, b]);
    const calling = await kit.connect();
    const idle = await kit.connect({ serverId: 'a' });
    const other = await kit.connect({ serverId: 'b' });
    void calling.peer.request('tools/call', { name: 'a__echo', arguments: {} });
    await until(() => a.received('tools/call').length === 1, 'call upstream');
    await a.peer!.notify('notifications/message', { level: 'info', data: 'hello' });
    await until(
      () => calling.notesOf('notifications/message').length === 1 && idle.notesOf('notifications/message').length === 1,
      'log at both',
    );
    await settle();
    expect(other.notesOf('notifications/message')).toHaveLength(0);
    expect(calling.notesOf('notifications/message')[0].related).toBe(2);
    expect(idle.notesOf('notifications/message')[0].related).toBeUndefined();
    expect(idle.notesOf('notifications/message')[0].n.params).toEqual({ level: 'info', data: 'hello' });
  });
});
