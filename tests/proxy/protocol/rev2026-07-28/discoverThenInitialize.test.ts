// A client that probes the stdio aggregation with `server/discover` (with the 2026-07-28
// envelope, as clients that support both eras do, or without one) and then sends `initialize`
// in a 2025 version the discover offered gets a 2025 session: the version it asked for, then
// tools/list and tools/call as any 2025 client. The built CLI over raw newline-delimited
// JSON-RPC, a real fixture server behind it.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, fixtureEntry } from '../../../helpers/proxyCli.js';
import { closeModernClients, envelope, proxyArgs, RawLines } from '../../../helpers/modernClient.js';

beforeAll(() => ensureBuilt());
afterEach(() => closeModernClients());

async function discoverThenInitialize(discoverParams: Record<string, unknown>, version: string) {
  const raw = new RawLines(process.execPath, proxyArgs({ a: fixtureEntry('a') }));
  const discover = await raw.request('server/discover', discoverParams);
  expect(discover.error).toBeUndefined();
  expect(discover.result.supportedVersions).toEqual(expect.arrayContaining(['2026-07-28', version]));

  const init = await raw.request('initialize', {
    protocolVersion: version,
    capabilities: {},
    clientInfo: { name: 'discovering-client', version: '1' },
  });
  expect(init.error).toBeUndefined();
  expect(init.result.protocolVersion).toBe(version);
  expect(init.result.serverInfo.name).toBe('qiming-mcp-stdio-proxy');
  expect(init.result.resultType).toBeUndefined();
  raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });

  const list = await raw.request('tools/list', {});
  expect(list.error).toBeUndefined();
  expect(list.result.tools.map((t: { name: string }) => t.name)).toContain('a__echo');
  // A 2025 session: no 2026 result fields on what it gets.
  expect(list.result.resultType).toBeUndefined();

  const call = await raw.request('tools/call', { name: 'a__echo', arguments: { text: 'after discover' } });
  expect(call.error).toBeUndefined();
  expect(call.result.content).toEqual([{ type: 'text', text: 'after discover' }]);
  return { discover: discover.result };
}

describe('server/discover, then initialize (stdio aggregation)', () => {
  it('initializes in 2025-11-25 after a discover with the 2026 envelope, and lists and calls tools', async () => {
    const { discover } = await discoverThenInitialize({ _meta: envelope() }, '2025-11-25');
    // The discover itself was answered as 2026-07-28 answers it.
    expect(discover.resultType).toBe('complete');
    expect(discover.ttlMs).toBe(0);
  });

  it('initializes in 2025-06-18, another offered version, after a discover', async () => {
    await discoverThenInitialize({ _meta: envelope() }, '2025-06-18');
  });

  it('initializes after a discover without any envelope', async () => {
    await discoverThenInitialize({}, '2025-11-25');
  });

  it('a session that sent a 2026 request is a 2026 session: its initialize is refused', async () => {
    const raw = new RawLines(process.execPath, proxyArgs({ a: fixtureEntry('a') }));
    await raw.request('server/discover', { _meta: envelope() });
    const list = await raw.request('tools/list', { _meta: envelope() });
    expect(list.result.resultType).toBe('complete');
    const init = await raw.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'late', version: '1' },
    });
    expect(init.error?.code).toBe(-32602);
  });
});
