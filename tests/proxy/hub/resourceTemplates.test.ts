// An aggregate's resources/read in the real bridge goes to the server whose resource template
// the URI fits; a server listing a template of ten expressions in a row (a pattern that
// backtracks) is matched in one pass, so a URI it does not fit is refused while /health and
// another session are answered. Real processes: the bridge, tests/fixtures/uriTemplateServer.mjs.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBridges, fixture, nodeEntry, startBridge } from '../../helpers/bridgeProcess.js';
import { ensureBuilt } from '../../helpers/proxyCli.js';

const TEMPLATES = fixture('uriTemplateServer.mjs');
const HOSTILE = 'h://{a}{b}{c}{d}{e}{f}{g}{h}{i}{j}!';

beforeAll(() => ensureBuilt());
afterEach(() => cleanupBridges());

describe("the bridge's /mcp routes resources/read by template", () => {
  it(
    'refuses a URI that fits no template of ten expressions while /health and another session are answered',
    { timeout: 120_000 },
    async () => {
      const b = await startBridge({
        config: {
          mcpServers: {
            hostile: nodeEntry(TEMPLATES, ['hostile', HOSTILE]),
            docs: nodeEntry(TEMPLATES, ['docs', 'docs://{section}/{page}.md']),
          },
        },
      });
      const { client: one } = await b.client('/mcp');
      const { client: two } = await b.client('/mcp');
      const read = (uri: string) => one.readResource({ uri }, { timeout: 90_000 });
      const text = async (uri: string) => ((await read(uri)).contents[0] as { text: string }).text;

      for (const uri of [`h://${'x'.repeat(39)}`, `h://${'x'.repeat(56)}`]) {
        const [refused, health, listed] = await Promise.allSettled([
          read(uri),
          b.fetch('/health').then((r) => r.json()),
          two.listTools(),
        ]);
        expect(refused.status === 'rejected' && String(refused.reason)).toMatch(`Unknown resource: ${uri}`);
        expect(health).toEqual({ status: 'fulfilled', value: { ok: true } });
        expect(listed.status === 'fulfilled' && listed.value.tools.map((t) => t.name).sort()).toEqual([
          'docs__echo',
          'hostile__echo',
        ]);
      }
      expect(await text('h://abcdefghij!')).toBe('hostile read h://abcdefghij!');
      await expect(read('h://abcdefghi!')).rejects.toThrow('Unknown resource: h://abcdefghi!');
      expect(await text('docs://guide/intro.md')).toBe('docs read docs://guide/intro.md');
      await expect(read('docs://guide.md')).rejects.toThrow('Unknown resource: docs://guide.md');
    },
  );
});
