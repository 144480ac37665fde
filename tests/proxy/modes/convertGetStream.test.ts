// Convert mode and the upstream's standalone GET stream: a server-to-client request that a
// streamable HTTP server sends on its GET stream right after initialization (not tied to
// any POST) must reach the stdio client, even when the client's first call follows
// `notifications/initialized` in the same write. The server is an SDK v1 server
// (tests/fixtures/samplingHttpServer.mjs) whose tool samples without a related request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LeanHttpClientTransport } from '../../../src/proxy/upstream/leanHttpClientTransport.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcess, cleanup, INITIALIZED, trackPids } from '../../helpers/cliProcess.js';
import { startSamplingServer, type SamplingServer } from '../../helpers/samplingServer.js';
import { waitFor } from '../../helpers/waitFor.js';

const servers: SamplingServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await cleanup();
});

async function startServer(): Promise<string> {
  const s = await startSamplingServer();
  servers.push(s);
  trackPids(s.child.pid!);
  return s.url;
}

/**
 * One stdio client: initialize (declaring sampling), then `initialized` and the call in one
 * write. Answers a sampling request if one arrives within `waitMs`; true when it did and
 * the call's result carries the answer.
 */
async function samplesOnce(url: string, waitMs: number): Promise<boolean> {
  const p = new CliProcess(['convert', url, '--transport', 'http', '--no-watchdog']);
  p.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: { sampling: {} }, clientInfo: { name: 't', version: '1' } },
  });
  await p.reply(1);
  const call = {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'sample_standalone', arguments: { prompt: 'q' } },
  };
  p.write(`${JSON.stringify(INITIALIZED)}\n${JSON.stringify(call)}\n`);
  const sampling = await waitFor(
    () => p.messages().find((m) => m.method === 'sampling/createMessage'),
    waitMs,
    'a sampling request',
  ).catch(() => undefined);
  let ok = false;
  if (sampling) {
    p.send({
      jsonrpc: '2.0',
      id: sampling.id,
      result: { role: 'assistant', model: 'm', content: { type: 'text', text: 'from the client' } },
    });
    const reply = await p.reply(2, 5000);
    ok = JSON.stringify(reply.result).includes('sampled: from the client');
  }
  p.child.stdin!.end();
  await p.waitExit(10_000);
  return ok;
}

describe('convert and the standalone GET stream', () => {
  it('delivers a sampling request the server sends on its GET stream right after initialized (5 of 5)', async () => {
    const url = await startServer();
    const results = await Promise.all(Array.from({ length: 5 }, () => samplesOnce(url, 4000)));
    expect(results.filter(Boolean).length).toBe(5);
  }, 30_000);
});

/**
 * A raw streamable HTTP server: initialize gets a JSON answer with a session id, other
 * POSTs get a JSON answer (requests) or 202; the GET is answered per `get` ('405', or
 * 'never': headers are never sent). `seen` records each request's method in arrival order.
 */
async function rawServer(get: '405' | 'never'): Promise<{ url: URL; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      seen.push('GET');
      if (get === '405') res.writeHead(405).end();
      else held.push(res);
      return;
    }
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(200).end();
      const m = JSON.parse(body) as { id?: number; method: string };
      seen.push(m.method);
      if (m.id === undefined) return void res.writeHead(202).end();
      const result =
        m.method === 'initialize'
          ? { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'raw', version: '1' } }
          : {};
      res
        .writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': 's1' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  return {
    url,
    seen,
    close: async () => {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('LeanHttpClientTransport holds messages after initialized until the GET stream is answered', () => {
  it.each(['405', 'never'] as const)(
    'GET answered %s: the next request waits for it, within the bound',
    async (get) => {
      const srv = await rawServer(get);
      const t = new LeanHttpClientTransport(srv.url, { getStreamWaitMs: 300 });
      const replies: Record<string, unknown>[] = [];
      t.onmessage = (m) => void replies.push(m as Record<string, unknown>);
      try {
        await t.start();
        await t.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} } as JSONRPCMessage);
        // initialized and the next request leave in the same tick, as convert forwards them.
        void t.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
        void t.send({ jsonrpc: '2.0', id: 2, method: 'ping' } as JSONRPCMessage);
        await waitFor(() => replies.find((m) => m.id === 2), 3000, 'the ping answer');
        expect(srv.seen).toEqual(['initialize', 'notifications/initialized', 'GET', 'ping']);
      } finally {
        await t.close();
        await srv.close();
      }
    },
  );
});
