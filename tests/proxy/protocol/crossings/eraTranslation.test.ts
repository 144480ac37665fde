// Translation between eras (a 2025 client, a 2026 server): a 2025-11-25 client (SDK v1)
// calling a tool of a 2026-07-28 server (SDK v2 fixture) that answers `input_required` gets
// ordinary server-to-client requests (elicitation/create, sampling/createMessage,
// roots/list), and the proxy re-issues the call with the answers and the server's
// requestState, over as many rounds as the server asks for.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { connectProxy, ensureBuilt, type ProxyHandle } from '../../../helpers/proxyCli.js';
import { modernEntry } from '../../../helpers/modernFixture.js';
import { cleanupBridges, startBridge } from '../../../helpers/bridgeProcess.js';
import { text } from '../../../helpers/toolText.js';

const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await cleanupBridges();
});

const ALL = { elicitation: true, sampling: true, roots: true };

async function proxy(
  capabilities: Record<string, unknown>,
  entryCaps: Record<string, boolean> = ALL,
): Promise<ProxyHandle> {
  const config = { mcpServers: { m: modernEntry('m', { clientCapabilities: entryCaps }) } };
  const h = await connectProxy(['--config', JSON.stringify(config), '--no-watchdog'], capabilities);
  cleanups.push(() => h.close());
  return h;
}

describe('a 2025 client, a 2026 server asking for input mid-call', () => {
  it('gets elicitation requests, round after round, and the call completes with its answers', async () => {
    const h = await proxy({ elicitation: {} });
    const asked: string[] = [];
    h.client.setRequestHandler(ElicitRequestSchema, async (r) => {
      asked.push(String(r.params.message));
      return { action: 'accept', content: { ok: asked.length === 1 } };
    });
    const res = await h.client.callTool({ name: 'm__confirm', arguments: { what: 'deploy' } });
    expect(asked).toEqual(['Really deploy?', 'Sure about deploy?']);
    expect(text(res)).toBe('deploy: first=true second=false');
    expect((res as Record<string, unknown>).resultType).toBeUndefined();
  });

  it('gets sampling and roots requests', async () => {
    const h = await proxy({ sampling: {}, roots: {} });
    h.client.setRequestHandler(CreateMessageRequestSchema, async (r) => {
      expect((r.params.messages[0]!.content as { text: string }).text).toBe('capital of France?');
      return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test', stopReason: 'endTurn' };
    });
    h.client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }],
    }));
    expect(text(await h.client.callTool({ name: 'm__sample', arguments: { prompt: 'capital of France?' } }))).toBe(
      'model said: Paris',
    );
    expect(text(await h.client.callTool({ name: 'm__roots', arguments: {} }))).toBe('file:///a,file:///b');
  });

  it('a client without the capability gets a clear error, not a hang', async () => {
    const h = await proxy({});
    const err = await h.client.callTool({ name: 'm__confirm', arguments: { what: 'x' } }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/needs elicitation from the client.*did not declare/);
  });

  it('without clientCapabilities on the entry the server is told none and refuses (-32021)', async () => {
    const h = await proxy({ elicitation: {} }, {});
    const err = await h.client
      .callTool({ name: 'm__confirm', arguments: { what: 'x' } })
      .catch((e: Error & { code?: number }) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as { code?: number }).code).toBe(-32021);
  });

  it('through the bridge (/mcp/<id> and /mcp, 2025 streamable HTTP sessions) as well', async () => {
    const b = await startBridge({ config: { mcpServers: { m: modernEntry('m', { clientCapabilities: ALL }) } } });
    for (const [path, tool] of [
      ['/mcp/m', 'confirm'],
      ['/mcp', 'm__confirm'],
    ]) {
      const { client } = await b.client(path!, { capabilities: { elicitation: {} } });
      let n = 0;
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { ok: ++n === 2 } }));
      expect(text(await client.callTool({ name: tool!, arguments: { what: 'ship' } }))).toBe(
        'ship: first=false second=true',
      );
    }
  });
});
