// Which protocol revision a downstream session speaks, chosen by its codec at its first
// request (protocol/codecChoice.ts): a request with a valid 2026-07-28 envelope before
// `initialize` chooses 2026-07-28 for good; a `server/discover` probe, a refused envelope and a
// request after `initialize` choose nothing. A hub over in-memory transports (pure protocol logic).
import { afterEach, describe, expect, it } from 'vitest';
import { JsonRpcPeer } from '../../../src/proxy/jsonrpc/jsonRpcPeer.js';
import type { DownstreamSession } from '../../../src/proxy/hub/downstreamSession.js';
import { SESSION_CODEC_2025 } from '../../../src/proxy/protocol/rev2025-11-25/sessionCodec2025.js';
import { SessionCodec2026 } from '../../../src/proxy/protocol/rev2026-07-28/sessionCodec2026.js';
import { FakeServer, startKit, type Kit } from '../hub/hubKit.js';
import { memoryPair } from '../hub/memoryPair.js';
import { envelope } from '../../helpers/modernClient.js';

let kit: Kit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

/** A session of a hub over one scripted server, and its client's peer (no `initialize` sent). */
async function open(): Promise<{ session: DownstreamSession; client: JsonRpcPeer }> {
  const server = new FakeServer('a');
  server.tools = [{ name: 'echo', inputSchema: { type: 'object' } }];
  kit = await startKit([server]);
  const [down, up] = memoryPair();
  const session = kit.hub.connect(up, {});
  await session.start();
  const client = new JsonRpcPeer(down);
  await client.start();
  return { session, client };
}

/** `method` asked of the session: its whole response (`result` or `error`). */
const ask = (client: JsonRpcPeer, method: string, params: Record<string, unknown>): Promise<any> =>
  client.request(method, params);

const initialize = (client: JsonRpcPeer) =>
  ask(client, 'initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'c', version: '1' },
  });

describe('the codec a session speaks', () => {
  it('starts as 2025-11-25', async () => {
    const { session } = await open();
    expect(session.codec).toBe(SESSION_CODEC_2025);
    expect(session.speaks2026).toBe(false);
  });

  it('is chosen 2026-07-28 by a first request with the envelope, once, and answers as 2026-07-28', async () => {
    const { session, client } = await open();
    const list = await ask(client, 'tools/list', { _meta: envelope() });
    expect(session.codec).toBeInstanceOf(SessionCodec2026);
    expect(session.speaks2026).toBe(true);
    expect(list.result?.resultType).toBe('complete');
    expect(session.clientName).toBe('raw-test');
    const chosen = session.codec;
    const again = await ask(client, 'tools/list', { _meta: envelope() });
    expect(again.result?.resultType).toBe('complete');
    expect(session.codec).toBe(chosen);
    // A 2026-07-28 session's every request needs the envelope: its `initialize` is refused.
    const init = await initialize(client);
    expect(init.error?.code).toBe(-32602);
    expect(init.result).toBeUndefined();
    expect(session.codec).toBe(chosen);
  });

  it('is not chosen by a server/discover probe: the initialize after it makes a 2025 session', async () => {
    const { session, client } = await open();
    const discover = await ask(client, 'server/discover', { _meta: envelope() });
    expect(discover.result?.resultType).toBe('complete');
    expect(session.codec).toBe(SESSION_CODEC_2025);
    const init = await initialize(client);
    expect(init.result?.protocolVersion).toBe('2025-11-25');
    expect(init.result?.resultType).toBeUndefined();
    const list = await ask(client, 'tools/list', {});
    expect(list.result?.resultType).toBeUndefined();
    expect(session.speaks2026).toBe(false);
  });

  it('is not chosen by a request whose envelope is refused', async () => {
    const { session, client } = await open();
    const bad = await ask(client, 'tools/list', {
      _meta: { ...envelope(), 'io.modelcontextprotocol/protocolVersion': '1900-01-01' },
    });
    expect(bad.error?.code).toBe(-32022);
    expect(session.codec).toBe(SESSION_CODEC_2025);
    const init = await initialize(client);
    expect(init.result?.protocolVersion).toBe('2025-11-25');
  });

  it('is not chosen by an envelope after initialize: the session stays 2025-11-25', async () => {
    const { session, client } = await open();
    await initialize(client);
    const list = await ask(client, 'tools/list', { _meta: envelope() });
    expect(list.error).toBeUndefined();
    expect(list.result?.resultType).toBeUndefined();
    expect(session.codec).toBe(SESSION_CODEC_2025);
  });
});
