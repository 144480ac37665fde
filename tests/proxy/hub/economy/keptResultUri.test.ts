// A `qiming-result://` URI (a tool result the proxy cut and kept) is answered by the proxy
// alone: the session that kept it reads it, and any other session, aggregate or single route,
// is refused by the proxy, for a read, a subscribe or a completion; the URI never reaches a
// server, even one that would answer any URI. The built bridge, the sized-results fixture and
// a 2025 server that answers every resource read and records every subscribe.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { cleanupBridges, startBridge } from '../../../helpers/bridgeProcess.js';
import { cleanup, readPids, tempDir } from '../../../helpers/cliProcess.js';
import { FIXTURES } from '../../../helpers/paths.js';

const SIZED = join(FIXTURES, 'sizedTextServer.mjs');
const ANY_URI = join(FIXTURES, 'subscriptions2025Server.mjs');
/** Over the default maxResultBytes (100,000): the result is cut and kept. */
const OVER_CAP_BYTES = 300_000;
const ELSEWHERE = '(a result the proxy cut is read back only in the session that received it, while it lasts)';

afterEach(async () => {
  await cleanupBridges();
  await cleanup();
});

/** The URI a cut result's note names. */
function keptUri(result: { content: { text?: string }[] }): string {
  const m = /the uri "(qiming-result:\/\/[0-9a-f]{12}\/\d+)"/.exec(result.content.at(-1)!.text ?? '');
  if (!m) throw new Error(`no kept-result URI in ${JSON.stringify(result.content.at(-1))}`);
  return m[1]!;
}

/** What the any-URI server was asked to subscribe to, by its own record. */
async function subscribedAt(c: Client, tool: string): Promise<string[]> {
  const r = (await c.callTool({ name: tool, arguments: {} })) as { content: { text: string }[] };
  return (JSON.parse(r.content[0]!.text) as { events: string[] }).events;
}

describe('a kept result URI is the proxy’s, never a server’s', () => {
  it('is read in the session that kept it and refused by the proxy everywhere else', async () => {
    const dir = tempDir();
    const b = await startBridge({
      config: {
        mcpServers: {
          sized: { command: process.execPath, args: [SIZED, join(dir, 'pids.jsonl')] },
          any: { command: process.execPath, args: [ANY_URI] },
        },
      },
    });
    readPids(join(dir, 'pids.jsonl'));
    const { client: keeper } = await b.client('/mcp');
    const cut = (await keeper.callTool({ name: 'sized__text', arguments: { bytes: OVER_CAP_BYTES } })) as {
      content: { text?: string }[];
    };
    const uri = keptUri(cut);
    expect((await keeper.readResource({ uri })).contents.length).toBeGreaterThan(0);
    // The server answers any URI it is handed: each refusal below is the proxy's.
    expect((await keeper.readResource({ uri: 'test://anything' })).contents[0]).toMatchObject({
      text: 'content of test://anything',
    });

    const unknownKey = 'qiming-result://000000000000/1';
    await expect(keeper.readResource({ uri: unknownKey })).rejects.toThrow(
      `Unknown resource: ${unknownKey} ${ELSEWHERE}`,
    );

    const { client: other } = await b.client('/mcp');
    await expect(other.readResource({ uri })).rejects.toThrow(`Unknown resource: ${uri} ${ELSEWHERE}`);
    await expect(other.subscribeResource({ uri })).rejects.toThrow(`Unknown resource: ${uri} ${ELSEWHERE}`);

    const { client: route } = await b.client('/mcp/any');
    await expect(route.readResource({ uri })).rejects.toThrow(`Unknown resource: ${uri} ${ELSEWHERE}`);
    await expect(route.subscribeResource({ uri })).rejects.toThrow(`Unknown resource: ${uri} ${ELSEWHERE}`);
    await expect(
      route.complete({ ref: { type: 'ref/resource', uri }, argument: { name: 'n', value: '' } }),
    ).rejects.toThrow(`Unknown resource template: ${uri}`);

    expect((await subscribedAt(route, 'state')).filter((e) => e.includes('qiming-result'))).toEqual([]);
  }, 90_000);
});
