// Server-to-client requests with several clients on one bridge route: when the upstream
// says which call a sampling request belongs to (a streamable HTTP server sending it on
// that call's own POST response stream, as SDK v1 does for `extra.sendRequest`), the
// request must reach the session whose call caused it, whatever the other sessions do.
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupBridges, fixture, nodeEntry, startBridge, trackPids } from '../../helpers/bridgeProcess.js';
import { startSamplingServer, type SamplingServer } from '../../helpers/samplingServer.js';

const servers: SamplingServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await cleanupBridges();
});

function text(result: unknown): string {
  return ((result as { content: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');
}

/** Each client answers sampling with its own name. */
function answerWithName(client: Client, name: string): void {
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    model: 'm',
    content: { type: 'text', text: name },
  }));
}

describe('sampling routed by the call it belongs to', () => {
  it.each([
    ['/mcp/s', 'sample_related'],
    ['/mcp', 's__sample_related'],
  ])(
    "on %s: 2 and 4 concurrent clients each get their own call's sampling requests (20 of 20 each)",
    async (path, tool) => {
      const server = await startSamplingServer();
      servers.push(server);
      trackPids(server.child.pid!);
      const b = await startBridge({
        config: { mcpServers: { s: { type: 'http', url: server.url, clientCapabilities: { sampling: true } } } },
      });
      for (const n of [2, 4]) {
        const clients = await Promise.all(
          Array.from({ length: n }, async (_, i) => {
            const name = `client-${n}-${i}`;
            const { client } = await b.client(path, { capabilities: { sampling: {} }, name });
            answerWithName(client, name);
            return { client, name };
          }),
        );
        let own = 0;
        let total = 0;
        for (let round = 0; round < 20 / n; round++) {
          // Every call is in flight when the server samples (it waits 150 ms first).
          const results = await Promise.all(
            clients.map(({ client }, i) =>
              client.callTool(
                { name: tool, arguments: { prompt: `round ${round}`, delayMs: 150 + 10 * i } },
                undefined,
                { timeout: 15_000 },
              ),
            ),
          );
          for (const [i, r] of results.entries()) {
            total++;
            if (text(r) === `sampled: ${clients[i]!.name}`) own++;
          }
        }
        expect({ n, own, total }).toEqual({ n, own: 20, total: 20 });
        for (const { client } of clients) await client.close();
      }
    },
    30_000,
  );

  it('a stdio server that names the call by its progress token: 2 concurrent clients get their own (10 of 10)', async () => {
    const b = await startBridge({
      config: {
        mcpServers: { t: { ...nodeEntry(fixture('tokenSamplingServer.mjs')), clientCapabilities: { sampling: true } } },
      },
    });
    const clients = await Promise.all(
      ['first', 'second'].map(async (name) => {
        const { client } = await b.client('/mcp/t', { capabilities: { sampling: {} }, name });
        answerWithName(client, name);
        return { client, name };
      }),
    );
    let own = 0;
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(
        clients.map(({ client }, i) =>
          // onprogress makes the SDK client send a progress token, which the server echoes.
          client.callTool({ name: 'sample_token', arguments: { prompt: 'p', delayMs: 150 + 10 * i } }, undefined, {
            timeout: 15_000,
            onprogress: () => undefined,
          }),
        ),
      );
      for (const [i, r] of results.entries()) if (text(r) === `sampled: ${clients[i]!.name}`) own++;
    }
    expect(own).toBe(10);
  }, 30_000);
});
