// The bridge's /activity routes (a real bridge process): the token and Host checks, bad
// filters, the SSE stream with its filters, and the log switched off.
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityRecord } from '../../../src/shared/activity.js';
import { cleanupBridges, rawRequest, startBridge, waitFor, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { fixtureEntry } from '../../helpers/proxyCli.js';

const clients: Client[] = [];
const streams: http.ClientRequest[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) s.destroy();
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await cleanupBridges();
});

async function client(b: BridgeProcess, path: string): Promise<Client> {
  const c = new Client({ name: 'route-client', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(b.url + path), { requestInit: { headers: b.auth } }));
  clients.push(c);
  return c;
}

/** Follows `/activity/events<query>`, collecting each `call` event's record. */
function follow(b: BridgeProcess, query: string): { records: ActivityRecord[]; opened: Promise<number> } {
  const records: ActivityRecord[] = [];
  let buffer = '';
  const opened = new Promise<number>((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port: b.port, path: `/activity/events${query}`, headers: b.auth },
      (res) => {
        resolve(res.statusCode!);
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          buffer += d;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = /^data: (.*)$/m.exec(event);
            if (/^event: call$/m.test(event) && data) records.push(JSON.parse(data[1]!) as ActivityRecord);
          }
        });
      },
    );
    req.on('error', reject);
    streams.push(req);
  });
  return { records, opened };
}

describe('/activity', () => {
  it('needs the token, refuses bad filters and methods, and streams new records that pass the filters', async () => {
    const b = await startBridge({ config: { mcpServers: { a: fixtureEntry('a'), b: fixtureEntry('b') } } });
    const noToken = await rawRequest(b.port, { path: '/activity', headers: { Host: `127.0.0.1:${b.port}` } });
    expect(noToken.status).toBe(401);
    const badHost = await rawRequest(b.port, { path: '/activity', headers: { ...b.auth, Host: 'evil.example' } });
    expect(badHost.status).toBe(403);
    const bad = await b.fetch('/activity?outcome=maybe');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('outcome must be one of');
    expect((await b.fetch('/activity', { method: 'POST' })).status).toBe(405);

    const onlyB = follow(b, '?server=b&outcome=ok');
    expect(await onlyB.opened).toBe(200);
    const c = await client(b, '/mcp');
    await c.callTool({ name: 'a__echo', arguments: { text: 'one' } });
    await c.callTool({ name: 'b__echo', arguments: { text: 'two' } });
    // A call its client gave up on (cancelled): not ok, not on this stream.
    await expect(
      c.callTool({ name: 'b__slow', arguments: { ms: 60_000 } }, undefined, { timeout: 200 }),
    ).rejects.toThrow();
    await waitFor(() => onlyB.records.some((r) => r.name === 'b__echo'), 10_000, 'the b__echo record on the stream');
    expect(onlyB.records.every((r) => r.server === 'b' && r.outcome === 'ok')).toBe(true);
    expect(onlyB.records.some((r) => r.name === 'a__echo')).toBe(false);
    // The page has them all, newest first.
    const page = (await (await b.fetch('/activity?text=echo')).json()) as { records: ActivityRecord[] };
    expect(page.records.map((r) => r.name)).toEqual(['b__echo', 'a__echo']);
  });

  it('answers 404 with the log off, and records nothing', async () => {
    const b = await startBridge({ config: { activity: 'off', mcpServers: { a: fixtureEntry('a') } } });
    const c = await client(b, '/mcp/a');
    await c.callTool({ name: 'echo', arguments: { text: 'x' } });
    const res = await b.fetch('/activity');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toContain('"activity": "off"');
    expect((await b.status()).servers[0]!.health).toBeUndefined();
  });
});
