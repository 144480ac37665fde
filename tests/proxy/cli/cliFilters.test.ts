// `--allow-tools` / `--deny-tools` in stdio aggregation, through the built CLI and an SDK
// client: filtered tools vanish from tools/list and calling one is refused (a tool result with
// isError that says how to allow it). Names may be
// the exposed `<serverId>__<tool>` (that server only) or the server's own (every server),
// and the command line narrows what each entry's own filter allows, never widens it.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CLI,
  cleanup,
  configJson,
  pidServerEntry,
  tempDir,
  trackPids,
  waitNoProcess,
} from '../../helpers/cliProcess.js';

afterEach(cleanup);

/** Two pidServers, `srv` and `other`, each with echo, add and secret_tool. */
function twoServers(extra: Record<string, unknown> = {}): string {
  const dir = tempDir();
  return configJson({
    srv: { ...pidServerEntry(join(dir, 'srv.jsonl')), ...extra },
    other: pidServerEntry(join(dir, 'other.jsonl')),
  });
}

async function session(args: string[]): Promise<{ client: Client; tools: string[]; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, ...args], stderr: 'pipe' });
  const client = new Client({ name: 'cli-filter-test', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid!;
  trackPids(pid);
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  return {
    client,
    tools,
    close: async () => {
      await client.close();
      expect(await waitNoProcess(pid, 8000)).toBe(true);
    },
  };
}

/** Refused as a tool result the model reads, naming the server whose filters hide it (hub/policyRefusal.ts). */
async function expectRefused(client: Client, name: string): Promise<void> {
  const res = await client.callTool({ name, arguments: {} });
  expect(res.isError).toBe(true);
  expect((res.content as { text: string }[])[0]!.text).toMatch(
    new RegExp(
      `^Tool ${name} is not allowed by the proxy configuration: the tool filters of server "${name.split('__')[0]}"`,
    ),
  );
}

describe('--allow-tools / --deny-tools in stdio aggregation', () => {
  it('without filters every tool of both servers is there', async () => {
    const s = await session(['--config', twoServers()]);
    expect(s.tools).toEqual([
      'other__add',
      'other__echo',
      'other__secret_tool',
      'srv__add',
      'srv__echo',
      'srv__secret_tool',
    ]);
    await s.close();
  });

  it('--deny-tools with an exposed name hides that one tool and refuses calling it', async () => {
    const s = await session(['--config', twoServers(), '--deny-tools', 'srv__secret_tool']);
    expect(s.tools).toEqual(['other__add', 'other__echo', 'other__secret_tool', 'srv__add', 'srv__echo']);
    await expectRefused(s.client, 'srv__secret_tool');
    const ok = await s.client.callTool({ name: 'other__secret_tool', arguments: {} });
    expect(ok.content).toEqual([{ type: 'text', text: 'secret' }]);
    await s.close();
  });

  it("--deny-tools with a server's own name applies to every server", async () => {
    const s = await session(['--config', twoServers(), '--deny-tools', 'secret_tool,add']);
    expect(s.tools).toEqual(['other__echo', 'srv__echo']);
    await expectRefused(s.client, 'srv__secret_tool');
    await expectRefused(s.client, 'other__add');
    await s.close();
  });

  it('--allow-tools keeps only the listed tools (both spellings)', async () => {
    const s = await session(['--config', twoServers(), '--allow-tools', 'echo,other__add']);
    expect(s.tools).toEqual(['other__add', 'other__echo', 'srv__echo']);
    await expectRefused(s.client, 'srv__add');
    const sum = await s.client.callTool({ name: 'other__add', arguments: { a: 2, b: 40 } });
    expect(sum.content).toEqual([{ type: 'text', text: '42' }]);
    await s.close();
  });

  it('deny wins over allow, and the command line cannot widen an entry filter', async () => {
    // The entry itself hides add; the command line allows add and echo and denies echo on srv.
    const s = await session([
      '--config',
      twoServers({ tools: { deny: ['add'] } }),
      '--allow-tools',
      'add,echo',
      '--deny-tools',
      'srv__echo',
    ]);
    expect(s.tools).toEqual(['other__add', 'other__echo']);
    await expectRefused(s.client, 'srv__add');
    await expectRefused(s.client, 'srv__echo');
    await s.close();
  });
});
