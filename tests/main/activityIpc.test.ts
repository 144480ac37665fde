// The activity log over IPC: the preload API's `activity` through the management handlers and
// the real ManagementService to a real bridge process; filters are checked before they leave.
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { registerManagementHandlers } from '../../src/main/app/managementIpc.js';
import type { IpcInvokeEventLike, IpcMainLike } from '../../src/main/app/ipcHandlers.js';
import { createPreloadApi } from '../../src/main/app/preloadApi.js';
import { ManagementService } from '../../src/main/config/managementService.js';
import { AgentSelectionStore } from '../../src/main/config/agentSelection.js';
import { cleanupBridges, startBridge, tempDir } from '../helpers/bridgeProcess.js';
import { fixtureEntry } from '../helpers/proxyCli.js';

const PAGE = 'file:///app/renderer/index.html';
let client: Client | undefined;
afterEach(async () => {
  await client?.close().catch(() => undefined);
  client = undefined;
  await cleanupBridges();
});

describe('activity over IPC', () => {
  it('pages the bridge log with filters, and refuses wrong filters before they reach it', async () => {
    const b = await startBridge({ config: { mcpServers: { a: fixtureEntry('a') } } });
    client = new Client({ name: 'ipc-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${b.url}/mcp`), { requestInit: { headers: b.auth } }),
    );
    await client.callTool({ name: 'a__echo', arguments: { text: 'one' } });
    await client.callTool({ name: 'a__echo', arguments: { text: 'two' } });

    const dir = tempDir();
    const handlers = new Map<string, (e: IpcInvokeEventLike, ...args: unknown[]) => unknown>();
    const ipcMain: IpcMainLike = {
      handle: (ch, fn) => void handlers.set(ch, fn),
      removeHandler: (ch) => void handlers.delete(ch),
    };
    const service = new ManagementService({
      configFile: `${dir}/mcp.json`,
      bridge: () => Promise.resolve({ url: b.url, token: b.bearer }),
      agents: new AgentSelectionStore(`${dir}/agents.json`),
    });
    registerManagementHandlers(ipcMain, service, { pageUrl: PAGE });
    const trusted = { senderFrame: { url: PAGE, parent: null } };
    const api = createPreloadApi({
      invoke: (ch, ...args) => Promise.resolve(handlers.get(ch)!(trusted, ...args)),
      on: () => undefined,
      removeListener: () => undefined,
    });

    const first = await api.activity!({ server: 'a', text: 'echo', limit: 1 });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.records).toHaveLength(1);
    expect(first.records[0]).toMatchObject({ server: 'a', name: 'a__echo', client: 'ipc-client', outcome: 'ok' });
    const second = await api.activity!({ server: 'a', text: 'echo', before: first.next });
    expect(second.ok && second.records.every((r) => r.seq < first.records[0]!.seq)).toBe(true);
    expect(second.ok && second.records).toHaveLength(1);

    expect(await api.activity!({ outcome: 'weird' as never })).toEqual({
      ok: false,
      error: 'outcome must be one of ok, tool-error, error, cancelled, timeout, denied',
    });
    expect(await api.activity!({ outcome: 'tool-error' })).toMatchObject({ ok: true, records: [] });
    expect(await api.activity!({ limit: 0 })).toEqual({ ok: false, error: 'limit must be a positive integer' });
  });
});
