// The bridge notes the ACP session key an agent's connection carries (X-Qiming-Agent-Session, on
// an authenticated MCP request or stream link) and `GET /agents/arrivals/<key>?waitMs=` answers
// whether it came: at once when it did, when it does within the wait, `false` once the wait is
// over. Malformed keys and requests without the token are refused.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBridges, fixture, nodeEntry, startBridge } from '../../helpers/bridgeProcess.js';
import { ensureBuilt } from '../../helpers/proxyCli.js';

const FIXTURE = fixture('mcpFixtureServer.mjs');
const KEY = 'AbCdEf0123456789_-xy';

beforeAll(() => ensureBuilt());
afterEach(async () => {
  await cleanupBridges();
});

describe("the bridge's /agents/arrivals", () => {
  it('answers false before the key came, true once a session carried it, and waits for one to come', async () => {
    const b = await startBridge({ config: { mcpServers: { a: nodeEntry(FIXTURE, ['--name', 'a']) } } });
    const ask = async (key: string, waitMs = 0) => {
      const res = await b.fetch(`/agents/arrivals/${key}?waitMs=${waitMs}`);
      return { status: res.status, body: (await res.json()) as { arrived?: boolean } };
    };
    expect(await ask(KEY)).toEqual({ status: 200, body: { arrived: false } });
    // A wait that a session opened while it runs answers true (the session comes within it).
    const waiting = ask(`${KEY}-2`, 30_000);
    const late = await b.client('/mcp', { headers: { 'X-Qiming-Agent-Session': `${KEY}-2` } });
    expect(await waiting).toEqual({ status: 200, body: { arrived: true } });
    await late.client.close();

    const session = await b.client('/mcp/a', { headers: { 'X-Qiming-Agent-Session': KEY } });
    await session.client.listTools();
    expect(await ask(KEY)).toEqual({ status: 200, body: { arrived: true } });

    expect((await ask('short')).status).toBe(400);
    expect((await ask('has%20space-0123456')).status).toBe(400);
    const anonymous = await fetch(`${b.url}/agents/arrivals/${KEY}`);
    expect(anonymous.status).toBe(401);
    await session.client.close();
  });
});
