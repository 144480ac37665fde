// `persistent: false` servers are for the per-session stdio proxy: the bridge leaves them out.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupBridges, memoryEntry, startBridge, tempDir } from '../../helpers/bridgeProcess.js';

afterEach(cleanupBridges);

describe('bridge and persistent: false', () => {
  it('starts only the persistent servers and says which it left to the sessions', async () => {
    const dir = tempDir();
    const b = await startBridge({
      config: { mcpServers: { kept: memoryEntry(dir), scratch: { ...memoryEntry(dir), persistent: false } } },
    });
    expect(b.ready!.servers.map((s) => s.id)).toEqual(['kept']);
    const status = await b.status();
    expect(status.servers.map((s) => s.id)).toEqual(['kept']);
    expect(b.stderr).toMatch(/persistent: false.*scratch/);
    expect((await b.fetch('/mcp/scratch', { method: 'POST' })).status).toBe(404);
  });
});
