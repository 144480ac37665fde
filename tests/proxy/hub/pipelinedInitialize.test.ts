// A request a client pipelines behind its `initialize` (without waiting for the answer) is
// answered after `initialize`, as a server answers in order. The aggregate `initialize` waits
// for the first server in its first start, then at most a grace for the others
// (initializeWait.ts); a pipelined tools/list still waits for every server in its first start.
import { afterEach, expect, it } from 'vitest';
import { Hub } from '../../../src/proxy/hub/hub.js';
import { parseConfig } from '../../../src/proxy/config/config.js';
import { Logger } from '../../../src/proxy/common/logger.js';
import { JsonRpcPeer } from '../../../src/proxy/jsonrpc/jsonRpcPeer.js';
import { FakeServer } from './hubKit.js';
import { waitFor } from '../../helpers/waitFor.js';
import { memoryPair } from './memoryPair.js';

/** In memory, an answer that was not held comes within a few event-loop turns, however loaded the machine. */
const NOT_HELD_WITHIN_MS = 20;

let hub: Hub | undefined;
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
});

/**
 * A hub over in-memory `servers` (each configured by its id), a client connected to it, and
 * its `initialize` with a `tools/list` pipelined behind it; `order` records which answered.
 */
async function pipelined(servers: FakeServer[]) {
  const byId = new Map(servers.map((f) => [f.id, f]));
  const config = parseConfig(
    { mcpServers: Object.fromEntries(servers.map((f) => [f.id, { command: 'never-spawned' }])) },
    { env: {} },
  );
  hub = new Hub(config, Logger.create('test', { level: 'error', sinks: [] }), {
    transportFactory: (entry) => {
      const [clientEnd, serverEnd] = memoryPair();
      byId.get(entry.id)!.attach(new JsonRpcPeer(serverEnd));
      void serverEnd.start();
      return clientEnd;
    },
  });
  const started = hub.start();
  const [down, up] = memoryPair();
  await hub.connect(up, {}).start();
  const client = new JsonRpcPeer(down);
  await client.start();
  const order: string[] = [];
  const answered =
    (what: string) =>
    <T>(r: T): T => {
      order.push(what);
      return r;
    };
  const init = client
    .call('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } })
    .then(answered('initialize'));
  const list = client.call('tools/list', {}).then(answered('tools/list'));
  return { started, client, order, init, list };
}

it('answers initialize first and the pipelined tools/list after it, while the server is still starting', async () => {
  const slow = new FakeServer('slow');
  slow.tools = [{ name: 'echo', inputSchema: { type: 'object' } }];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  slow.handlers.initialize = async () => {
    await released;
    return { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1' } };
  };
  const { started, client, order, init, list } = await pipelined([slow]);
  await new Promise((r) => setTimeout(r, NOT_HELD_WITHIN_MS));
  expect(order).toEqual([]); // both wait for the server's first start
  release();
  const [i, l] = await Promise.all([init, list, started]);
  expect(order).toEqual(['initialize', 'tools/list']);
  expect(i).toMatchObject({ capabilities: { tools: {} } });
  expect(l).toMatchObject({ tools: [{ name: 'slow__echo' }] });
  await client.close();
});

it('answers initialize while a second server is still starting, and the pipelined tools/list once it is up', async () => {
  const quick = new FakeServer('quick');
  quick.tools = [{ name: 'echo', inputSchema: { type: 'object' } }];
  const slow = new FakeServer('slow', { tools: {}, tasks: { list: {} } });
  slow.tools = [{ name: 'echo', inputSchema: { type: 'object' } }];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let slowStarted = false;
  slow.handlers.initialize = async () => {
    await released;
    slowStarted = true;
    return {
      protocolVersion: '2025-06-18',
      capabilities: slow.capabilities,
      serverInfo: { name: 'slow', version: '1' },
    };
  };
  const { started, client, order, init, list } = await pipelined([quick, slow]);
  await waitFor(() => order.includes('initialize'), 15_000, 'initialize answered while the slow server is held');
  expect(slowStarted).toBe(false);
  // What is known: the quick server's capabilities and the lists; not the held server's tasks.
  expect(await init).toEqual(
    expect.objectContaining({ capabilities: expect.not.objectContaining({ tasks: expect.anything() }) }),
  );
  expect(await init).toMatchObject({ capabilities: { tools: { listChanged: true } } });
  expect(order).toEqual(['initialize']);
  release();
  const [l] = await Promise.all([list, started]);
  expect(order).toEqual(['initialize', 'tools/list']);
  expect((l as { tools: { name: string }[] }).tools.map((t) => t.name).sort()).toEqual(['quick__echo', 'slow__echo']);
  await client.close();
});
