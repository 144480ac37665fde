// The product's path: a stdio proxy (the agent's grandchild) whose upstreams are the
// bridge's URLs (`type: "bridge"`). The first tools/list is complete, and when the bridge is
// replaced on the same port (a crash, a config change), the proxy reconnects by itself.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupBridges, killHard, memoryEntry, startBridge, tempDir, waitFor } from '../../helpers/bridgeProcess.js';
import { connectProxy, fixtureEntry, type ProxyHandle } from '../../helpers/proxyCli.js';

let proxy: ProxyHandle | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await cleanupBridges();
});

function text(res: unknown): string {
  return ((res as { content: { text: string }[] }).content[0] ?? { text: '' }).text;
}

describe('stdio proxy over bridge upstreams', () => {
  it('lists every bridge tool on its first tools/list and survives a bridge restart on the same port', async () => {
    const dir = tempDir();
    const config = { mcpServers: { memory: memoryEntry(dir), fx: fixtureEntry('fx') } };
    const token = 'a-test-token-of-sufficient-length';
    const first = await startBridge({ config, token });
    const port = first.ready!.port;
    const upstream = (id: string) => ({
      type: 'bridge',
      url: `${first.ready!.url}/mcp/${id}`,
      headers: { Authorization: 'Bearer ${MCP_BRIDGE_TOKEN}' },
    });
    proxy = await connectProxy(
      ['--config', JSON.stringify({ mcpServers: { memory: upstream('memory'), fx: upstream('fx') } }), '--no-watchdog'],
      {},
      { MCP_BRIDGE_TOKEN: token },
    );
    const tools = (await proxy.client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('memory__create_entities');
    expect(tools).toContain('fx__echo');
    expect(text(await proxy.client.callTool({ name: 'fx__echo', arguments: { text: 'one' } }))).toBe('one');

    // The bridge dies; a new one comes up on the same port with the same token.
    killHard(first.pid!);
    await first.waitExit(5000);
    const second = await startBridge({ config, token, port });
    expect(second.ready!.port).toBe(port);
    const again = await waitFor(
      async () => {
        try {
          return text(await proxy!.client.callTool({ name: 'fx__echo', arguments: { text: 'two' } }));
        } catch {
          return undefined;
        }
      },
      20_000,
      'the proxy to reconnect to the new bridge',
    );
    expect(again).toBe('two');
    const who = JSON.parse(text(await proxy.client.callTool({ name: 'fx__whoami', arguments: {} })));
    const status = await second.status();
    expect(who.pid).toBe(status.servers.find((s) => s.id === 'fx')!.pid);
  });
});
