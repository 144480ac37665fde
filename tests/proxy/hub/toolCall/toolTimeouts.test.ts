// Per-request and per-tool timeouts through the aggregation proxy: a default that fails slow
// calls, toolTimeouts globs that let chosen tools wait longer, and progress resetting the timer.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectProxy, ensureBuilt, fixtureEntry, type ProxyHandle } from '../../../helpers/proxyCli.js';
import { recordProgress } from '../../../helpers/progressRecorder.js';

let handle: ProxyHandle | undefined;
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

describe('tool timeouts', () => {
  it('applies timeoutMs, per-entry and global toolTimeouts, and lets progress reset the timer', async () => {
    const config = {
      mcpServers: {
        strict: { ...fixtureEntry('strict'), timeoutMs: 800 },
        patient: { ...fixtureEntry('patient'), timeoutMs: 800, toolTimeouts: { 'sl*': 5000 } },
        global: { ...fixtureEntry('global'), timeoutMs: 800 },
      },
      toolTimeouts: { slow: 4000 },
    };
    // The entry's own map wins over the global one: "strict" has none, so the global applies.
    handle = await connectProxy([
      '--config',
      JSON.stringify({
        ...config,
        mcpServers: { ...config.mcpServers, strict: { ...config.mcpServers.strict, toolTimeouts: { echo: 100 } } },
      }),
      '--no-watchdog',
    ]);
    const { client } = handle;
    const slow = (server: string, ms: number, onprogress?: (p: { progress: number }) => void) =>
      client.callTool({ name: `${server}__slow`, arguments: { ms, steps: 1 } }, undefined, {
        timeout: 20_000,
        ...(onprogress ? { onprogress } : {}),
      });

    // Calls of 2 s: well past the entries' 800 ms, well inside the 4 s and 5 s of the maps.
    expect(await slow('patient', 2000)).toMatchObject({ content: [{ type: 'text', text: 'slept 2000' }] }); // 'sl*' -> 5000 ms
    expect(await slow('global', 2000)).toMatchObject({ content: [{ type: 'text', text: 'slept 2000' }] }); // global 'slow' -> 4000 ms
    expect(await slow('strict', 2000)).toMatchObject({ content: [{ type: 'text', text: 'slept 2000' }] }); // no entry match for slow -> global applies

    // Without any toolTimeouts match the per-request default (800 ms) fails the call clearly.
    handle2 = await connectProxy([
      '--config',
      JSON.stringify({ mcpServers: { strict: { ...fixtureEntry('strict'), timeoutMs: 800 } } }),
      '--no-watchdog',
    ]);
    // The message names the 800 ms limit: the proxy's timer fired, not the 3 s call's end.
    await expect(
      handle2.client.callTool({ name: 'strict__slow', arguments: { ms: 3000, steps: 1 } }, undefined, {
        timeout: 20_000,
      }),
    ).rejects.toThrow(/timed out after 800 ms/);
    // Progress every 200 ms keeps an 800 ms timeout from firing on a 2.4 s call.
    const progress = recordProgress(handle2.client);
    await expect(
      handle2.client.callTool(
        { name: 'strict__slow', arguments: { ms: 2400, steps: 12 }, _meta: { progressToken: 'p1' } },
        undefined,
        { timeout: 20_000 },
      ),
    ).resolves.toMatchObject({ content: [{ type: 'text', text: 'slept 2400' }] });
    expect(await progress.steps('p1', 12)).toHaveLength(12);
    await handle2.close();
    handle2 = undefined;
  });
});

let handle2: ProxyHandle | undefined;
afterEach(async () => {
  await handle2?.close();
  handle2 = undefined;
});
