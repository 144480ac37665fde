// Per-request and per-tool timeouts through the aggregation proxy: a default that fails slow
// calls, toolTimeouts globs that let chosen tools wait longer, and progress resetting the timer.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectProxy, ensureBuilt, fixtureEntry, type ProxyHandle } from '../helpers/proxyCli.js';

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
        strict: { ...fixtureEntry('strict'), timeoutMs: 400 },
        patient: { ...fixtureEntry('patient'), timeoutMs: 400, toolTimeouts: { 'sl*': 5000 } },
        global: { ...fixtureEntry('global'), timeoutMs: 400 },
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

    expect(await slow('patient', 1200)).toMatchObject({ content: [{ type: 'text', text: 'slept 1200' }] }); // 'sl*' -> 5000 ms
    expect(await slow('global', 1200)).toMatchObject({ content: [{ type: 'text', text: 'slept 1200' }] }); // global 'slow' -> 4000 ms
    expect(await slow('strict', 1200)).toMatchObject({ content: [{ type: 'text', text: 'slept 1200' }] }); // no entry match for slow -> global applies

    // Without any toolTimeouts match the per-request default (400 ms) fails the call clearly.
    handle2 = await connectProxy([
      '--config',
      JSON.stringify({ mcpServers: { strict: { ...fixtureEntry('strict'), timeoutMs: 400 } } }),
      '--no-watchdog',
    ]);
    // The message names the 400 ms limit: the proxy's timer fired, not the 3 s call's end.
    await expect(
      handle2.client.callTool({ name: 'strict__slow', arguments: { ms: 3000, steps: 1 } }, undefined, {
        timeout: 20_000,
      }),
    ).rejects.toThrow(/timed out after 400 ms/);
    // Progress every 150 ms keeps a 400 ms timeout from firing on a 1.5 s call.
    const progress: number[] = [];
    await expect(
      handle2.client.callTool({ name: 'strict__slow', arguments: { ms: 1500, steps: 10 } }, undefined, {
        timeout: 20_000,
        onprogress: (p) => progress.push(p.progress),
      }),
    ).resolves.toMatchObject({ content: [{ type: 'text', text: 'slept 1500' }] });
    expect(progress.length).toBeGreaterThanOrEqual(9);
    await handle2.close();
    handle2 = undefined;
  });
});

let handle2: ProxyHandle | undefined;
afterEach(async () => {
  await handle2?.close();
  handle2 = undefined;
});
