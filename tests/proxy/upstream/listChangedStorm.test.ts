// A server that sends thousands of tools/list_changed in one go, through the built CLI's stdio
// aggregation: its list is fetched again a handful of times, not once per notice, and the
// aggregate ends with the latest list. Real processes: the CLI,
// tests/fixtures/listChangedStormServer.mjs, an SDK client.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectProxy, ensureBuilt, waitFor, type ProxyHandle } from '../../helpers/proxyCli.js';
import { FIXTURES } from '../../helpers/paths.js';
import { join } from 'node:path';
import { text } from '../../helpers/toolText.js';

const STORM = join(FIXTURES, 'listChangedStormServer.mjs');
const NOTICES = 3000;
/** A handful: one refresh running when the notices arrive, one more for all that came meanwhile, and some slack. */
const AT_MOST_RELISTS = 10;

let handles: ProxyHandle[] = [];
beforeAll(() => ensureBuilt());
afterEach(async () => {
  for (const h of handles) await h.close();
  handles = [];
});

describe('a list_changed storm', () => {
  it(
    `costs a handful of re-lists for ${NOTICES} notices, and the aggregate lists the latest`,
    { timeout: 120_000 },
    async () => {
      const h = await connectProxy([
        '--config',
        JSON.stringify({ mcpServers: { s: { command: process.execPath, args: [STORM] } } }),
        '--no-watchdog',
      ]);
      handles.push(h);
      const { client } = h;
      const heard = { count: 0 };
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard.count++);
      const relists = async () => Number(text(await client.callTool({ name: 's__relists', arguments: {} })));
      const names = async () => (await client.listTools()).tools.map((t) => t.name);
      expect(await names()).toEqual(['s__storm', 's__relists', 's__version_0']);
      const before = await relists();

      expect(text(await client.callTool({ name: 's__storm', arguments: { count: NOTICES } }))).toBe(`sent ${NOTICES}`);
      await waitFor(async () => (await names()).includes(`s__version_${NOTICES}`), 60_000, 'the latest tool list');
      // A round trip after the latest list: a re-list still running would have been counted by now.
      await client.ping();
      const during = (await relists()) - before;
      expect(during).toBeGreaterThanOrEqual(1);
      expect(during).toBeLessThanOrEqual(AT_MOST_RELISTS);
      expect(await names()).toEqual(['s__storm', 's__relists', `s__version_${NOTICES}`]);
      expect(heard.count).toBeGreaterThanOrEqual(1);
      expect(heard.count).toBeLessThanOrEqual(AT_MOST_RELISTS);
    },
  );
});
