// A server that lists one tool name twice has one tool by that name: the first one listed. The
// bridge's `/mcp/<id>` lists it once and calls it under tool pinning (the default), also after a
// restart on the same pins, when the pins written at the first listing are checked; the
// aggregate `/mcp` names it once; the log says the later one is dropped. The built bridge, a
// real fixture server (tests/fixtures/twiceListedServer.mjs), real HTTP.
import { afterEach, expect, it } from 'vitest';
import { join } from 'node:path';
import { cleanupBridges, fixture, startBridge, tempDir } from '../../helpers/bridgeProcess.js';

afterEach(() => cleanupBridges());

it('lists and calls the first of two tools listed under one name, before and after a restart', async () => {
  const dir = tempDir('twice-listed-');
  const config = { mcpServers: { t: { command: process.execPath, args: [fixture('twiceListedServer.mjs')] } } };
  const env = { QIMING_PINS_DIR: join(dir, 'pins'), QIMING_PINNING: undefined };
  for (const start of ['first start', 'restart on the same pins']) {
    const bridge = await startBridge({ config, env });
    const { client } = await bridge.client('/mcp/t');
    const tools = (await client.listTools()).tools;
    expect(
      tools.map((t) => t.name),
      start,
    ).toEqual(['echo', 'other']);
    expect(tools[0]!.description, start).toBe('The first echo.');
    const result = await client.callTool({ name: 'echo', arguments: { text: 'called once' } });
    expect(result, start).toEqual({ content: [{ type: 'text', text: 'called once' }] });
    expect((await bridge.server('t')).pinning, start).toEqual({ mode: 'block', drifts: [] });

    const { client: aggregate } = await bridge.client('/mcp');
    const names = (await aggregate.listTools()).tools.map((t) => t.name);
    expect(
      names.filter((n) => n === 't__echo'),
      start,
    ).toHaveLength(1);
    expect(bridge.stderr, start).toContain(
      'tools/list lists tool "echo" more than once: the first one listed is the tool, the others are dropped',
    );
    // Stopped, not cleaned up: the pins folder stays for the restart.
    bridge.child.kill('SIGTERM');
    await bridge.waitExit(20_000);
  }
});
