// A server that answers the standalone GET stream with 404 instead of the spec's 405 (the
// MCP conformance suite's does) has no GET stream; it is not a broken connection. Before,
// the transport reported it as an error and the resilient wrapper reconnected in a loop.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { LeanHttpClientTransport } from '../../../src/proxy/upstream/leanHttpClientTransport.js';
import { waitFor } from '../../helpers/waitFor.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('GET stream answered 404', () => {
  it('means no GET stream: no error, later requests work', async () => {
    let gets = 0;
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        if (req.method === 'GET') {
          gets++;
          res.writeHead(404).end();
          return;
        }
        const m = body ? (JSON.parse(body) as { id?: number }) : {};
        if (m.id === undefined) return void res.writeHead(202).end();
        res.writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': 's1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => server.close(r)));
    const t = new LeanHttpClientTransport(
      new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`),
    );
    cleanups.push(() => t.close());
    const errors: Error[] = [];
    const replies: unknown[] = [];
    t.onerror = (e) => errors.push(e);
    t.onmessage = (m) => replies.push(m);
    await t.start();
    await t.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await waitFor(() => gets === 1, 5000, 'the GET stream request');
    // Held until the GET was answered; answered after it.
    await t.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await waitFor(() => replies.length === 2, 5000, 'the ping reply');
    expect(errors).toEqual([]);
    expect(gets).toBe(1);
  });
});
