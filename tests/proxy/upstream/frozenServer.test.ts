// A server that stops answering (SIGSTOPped) while its process lives: after several calls in
// a row time out, /status says so in lastError; the first answer after SIGCONT clears it.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupBridges, fixture, nodeEntry, startBridge, waitFor } from '../../helpers/bridgeProcess.js';

const stopped: number[] = [];
afterEach(async () => {
  for (const pid of stopped.splice(0)) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // already gone
    }
  }
  await cleanupBridges();
});

describe('a frozen server', () => {
  it('is reported as not answering after calls in a row time out, and clears when it answers again', async () => {
    const b = await startBridge({
      config: {
        mcpServers: { frozen: nodeEntry(fixture('mcpFixtureServer.mjs'), ['--name', 'frozen'], { timeoutMs: 300 }) },
      },
    });
    const { client } = await b.client('/mcp/frozen');
    const pid = (await b.server('frozen')).pid!;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGSTOP');
    stopped.push(pid);
    for (let i = 0; i < 3; i++) {
      await expect(client.callTool({ name: 'echo', arguments: { text: `t${i}` } })).rejects.toThrow(
        /timed out after 300 ms/,
      );
    }
    const frozen = await b.server('frozen');
    // Before the fix: state ready, lastError undefined.
    expect(frozen.lastError).toMatch(
      /^not answering: 3 requests in a row timed out \(last: tools\/call after 300 ms\)$/,
    );
    process.kill(pid, 'SIGCONT');
    await waitFor(
      async () => {
        const r = await client.callTool({ name: 'echo', arguments: { text: 'back' } }).catch(() => undefined);
        return r !== undefined;
      },
      10_000,
      'an answer after SIGCONT',
    );
    const back = await b.server('frozen');
    expect(back.state).toBe('ready');
    expect(back.lastError).toBeUndefined();
  }, 30_000);
});
