// A call to a tool of a server that is not ready names the server, its state and why,
// instead of "Unknown tool": in aggregation that server lists no names, so the
// `<serverId>__` prefix says whose the tool is. Through the built CLI.
import { afterEach, describe, expect, it } from 'vitest';
import { unauthorizedServer, type FaultyServer } from '../../helpers/faultyRemotes.js';
import { connectProxy, fixtureEntry, type ProxyHandle } from '../../helpers/proxyCli.js';

const servers: FaultyServer[] = [];
const handles: ProxyHandle[] = [];
afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
  for (const s of servers.splice(0)) await s.stop();
});

describe('calling a tool of a server that is not ready', () => {
  it('says which server it belongs to, its state and its last error', async () => {
    const denied = await unauthorizedServer();
    servers.push(denied);
    const config = {
      mcpServers: {
        local: fixtureEntry('local'),
        broken: { command: '/nonexistent/qiming-no-such-server' },
        remote: { url: `http://127.0.0.1:${denied.port}/mcp`, type: 'http', connectionTimeoutMs: 10_000 },
      },
      readyTimeoutMs: 10_000,
    };
    const h = await connectProxy(['--config', JSON.stringify(config), '--no-watchdog']);
    handles.push(h);
    expect((await h.client.listTools()).tools.map((t) => t.name)).toContain('local__echo');
    await expect(h.client.callTool({ name: 'broken__echo', arguments: {} })).rejects.toThrow(
      /tool "broken__echo" belongs to server "broken", which is (restarting|failed): .*start failed/,
    );
    await expect(h.client.callTool({ name: 'remote__search', arguments: {} })).rejects.toThrow(
      /tool "remote__search" belongs to server "remote", which is failed: start failed: HTTP 401 Unauthorized from http:\/\/127\.0\.0\.1:\d+\/mcp/,
    );
    // A ready server's missing tool, and a name of no server, stay plain unknown tools.
    await expect(h.client.callTool({ name: 'local__nope', arguments: {} })).rejects.toThrow(
      /Unknown tool: local__nope/,
    );
    await expect(h.client.callTool({ name: 'nobody__x', arguments: {} })).rejects.toThrow(/Unknown tool: nobody__x/);
    await expect(h.client.getPrompt({ name: 'remote__p' })).rejects.toThrow(
      /prompt "remote__p" belongs to server "remote", which is failed/,
    );
  }, 30_000);
});
