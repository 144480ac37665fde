// A request a client pipelines behind its `initialize` (without waiting for the answer) is
// answered after `initialize`, as a server answers in order; the aggregate `initialize` waits
// for servers in their first start (initializeResult.ts), and so must what follows it.
import { afterEach, expect, it } from 'vitest';
import { Hub } from '../../../src/proxy/hub/hub.js';
import { parseConfig } from '../../../src/proxy/config/config.js';
import { Logger } from '../../../src/proxy/common/logger.js';
import { JsonRpcPeer } from '../../../src/proxy/jsonrpc/jsonRpcPeer.js';
import { FakeServer } from './hubKit.js';
import { memoryPair } from './memoryPair.js';

let hub: Hub | undefined;
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
});

it('answers initialize first and the pipelined tools/list after it, while the server is still starting', async () => {
  const slow = new FakeServer('slow');
  slow.tools = [{ name: 'echo', inputSchema: { type: 'object' } }];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  slow.handlers.initialize = async () => {
    await released;
    return { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1' } };
  };
  const config = parseConfig({ mcpServers: { slow: { command: 'never-spawned' } } }, { env: {} });
  hub = new Hub(config, Logger.create('test', { level: 'error', sinks: [] }), {
    transportFactory: () => {
      const [clientEnd, serverEnd] = memoryPair();
      slow.attach(new JsonRpcPeer(serverEnd));
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
  const init = client.call('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } }).then((r) => {
    order.push('initialize');
    return r;
  });
  const list = client.call('tools/list', {}).then((r) => {
    order.push('tools/list');
    return r;
  });
  await new Promise((r) => setTimeout(r, 20));
  expect(order).toEqual([]); // both wait for the server's first start
  release();
  const [i, l] = await Promise.all([init, list, started]);
  expect(order).toEqual(['initialize', 'tools/list']);
  expect(i).toMatchObject({ capabilities: { tools: {} } });
  expect(l).toMatchObject({ tools: [{ name: 'slow__echo' }] });
  await client.close();
});
