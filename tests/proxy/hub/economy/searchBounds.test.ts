// search_tools with requests far past what a request is, in the real bridge's /mcp over three
// servers of the tool catalog: a 1 MB word, a 40 KB word and 1 MB of words are read up to the
// search's bounds (hub/economy/searchTerms.ts), so each answers with what its first words
// find while /health and another session are answered. Real processes: the bridge,
// tests/fixtures/catalogServer.mjs, SDK clients over HTTP.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { catalogServers } from '../../../helpers/catalogSet.js';
import { cleanupBridges, startBridge } from '../../../helpers/bridgeProcess.js';
import { ensureBuilt } from '../../../helpers/proxyCli.js';

type Found = { structuredContent: { tools: { name: string }[] }; isError?: boolean };

beforeAll(() => ensureBuilt());
afterEach(() => cleanupBridges());

const MB = 1024 * 1024;
const search = (client: Client, query: string) =>
  client.callTool({ name: 'search_tools', arguments: { query } }, undefined, {
    timeout: 90_000,
  }) as Promise<unknown> as Promise<Found>;

describe('search_tools with a hostile request', () => {
  it(
    'answers a 1 MB word, a 40 KB word and 1 MB of words by their first words, while /health and another session are answered',
    { timeout: 180_000 },
    async () => {
      const b = await startBridge({
        config: { toolExposure: 'search', mcpServers: catalogServers(['playwright', 'filesystem', 'memory']) },
      });
      const { client: one } = await b.client('/mcp');
      const { client: two } = await b.client('/mcp');
      const names = (found: Found) => found.structuredContent.tools.map((t) => t.name);
      // The index is built by the first search.
      expect(names(await search(one, 'take a screenshot')).some((n) => n.startsWith('playwright__'))).toBe(true);

      const [word, health, listed] = await Promise.all([
        search(one, 'x'.repeat(MB)),
        b.fetch('/health').then((r) => r.json()),
        two.listTools(),
      ]);
      expect(word.isError).toBeUndefined();
      expect(word.structuredContent).toEqual({ tools: [] });
      expect(health).toEqual({ ok: true });
      expect(listed.tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool']);

      // A word too long to read whole costs the rest of the request nothing.
      const screenshot = await search(one, `take a screenshot ${'x'.repeat(40 * 1024)}`);
      expect(names(screenshot)[0]).toBe('playwright__browser_take_screenshot');
      const directory = await search(one, `list the directory ${'and then some more words '.repeat(MB / 25)}`);
      expect(names(directory)[0]).toBe('filesystem__list_directory');
      expect((await two.listTools()).tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool']);
    },
  );
});
