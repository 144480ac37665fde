// @modelcontextprotocol/server-filesystem in a bubblewrap sandbox whose one write path is the
// root it serves, through each way the runtime runs it: the CLI's stdio aggregation, the
// bridge (with `servers[].sandbox` in its /status), and the app's chain (McpRuntime starting
// the bridge). Each writes a file into the real root and reads it back, while the user's secret
// beside the root stays out of its reach.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { McpRuntime } from '../../../src/main/runtime/mcpRuntime.js';
import { cleanupBridges, FILESYSTEM_SERVER, startBridge } from '../../helpers/bridgeProcess.js';
import { connectProxy, type ProxyHandle } from '../../helpers/proxyCli.js';
import { callText, userFolders } from '../../helpers/sandboxKit.js';
import { cleanupRuntimes, ensureCli, memoryLogger } from '../../main/mainHarness.js';

const u = userFolders('sandbox-fs-');
const entry = {
  command: process.execPath,
  args: [FILESYSTEM_SERVER, u.project],
  sandbox: { filesystem: { write: [u.project] } },
  // Its writes would be asked about, with no one here to answer (hub/approval/).
  approval: 'off',
};
const config = { mcpServers: { fs: entry } };
const handles: ProxyHandle[] = [];
const runtimes: McpRuntime[] = [];
afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
  await cleanupBridges();
  expect(await cleanupRuntimes(runtimes, [])).toEqual([]);
});
afterAll(() => u.remove());

/** Writes `name` through the server, reads it back through it, and returns what the real file holds. */
async function roundTrip(client: Client, prefix: string, name: string): Promise<{ read: string; onDisk: string }> {
  const path = join(u.project, name);
  expect(await callText(client, `${prefix}write_file`, { path, content: `written as ${name}` })).toMatch(
    /^Successfully wrote/,
  );
  const read = await callText(client, `${prefix}read_text_file`, { path });
  return { read, onDisk: readFileSync(path, 'utf8') };
}

describe.skipIf(process.platform !== 'linux')('server-filesystem sandboxed with its root as the write path', () => {
  it('works through stdio aggregation', async () => {
    const file = join(u.root, 'stdio.json');
    writeFileSync(file, JSON.stringify(config));
    const p = await connectProxy(['--config-file', file], {}, u.env);
    handles.push(p);
    expect(await roundTrip(p.client, 'fs__', 'stdio.txt')).toEqual({
      read: 'written as stdio.txt',
      onDisk: 'written as stdio.txt',
    });
    expect(p.stderr.join('\n')).not.toContain('cannot start');
  }, 60_000);

  it('works through the bridge, whose /status says what its sandbox allows', async () => {
    const bridge = await startBridge({ config, env: u.env });
    const { client } = await bridge.client('/mcp/fs');
    expect(await roundTrip(client, '', 'bridge.txt')).toEqual({
      read: 'written as bridge.txt',
      onDisk: 'written as bridge.txt',
    });
    const status = await bridge.server('fs');
    expect(status.sandbox).toEqual({
      engine: 'bubblewrap',
      home: '~/.config/qiming-mcp-runtime/mcp/sandbox/fs/home',
      read: [],
      write: [u.project],
      network: 'none',
    });
  }, 60_000);

  it("works through the app's chain: McpRuntime and its bridge", async () => {
    const configFile = join(u.root, 'app.json');
    writeFileSync(configFile, JSON.stringify(config));
    const saved = { ...process.env };
    Object.assign(process.env, u.env);
    const runtime = new McpRuntime({
      configFile,
      cliPath: ensureCli(),
      logger: memoryLogger().logger,
      watchConfig: false,
    });
    runtimes.push(runtime);
    try {
      await runtime.start();
    } finally {
      for (const k of Object.keys(u.env)) process.env[k] = saved[k];
    }
    const info = await runtime.whenReady();
    const client = new Client({ name: 'app-chain', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${info.url}/mcp/fs`), {
        requestInit: { headers: { Authorization: `Bearer ${info.token}` } },
      }),
    );
    try {
      expect(await roundTrip(client, '', 'app.txt')).toEqual({
        read: 'written as app.txt',
        onDisk: 'written as app.txt',
      });
      expect(runtime.status().servers.find((s) => s.id === 'fs')?.sandbox?.write).toEqual([u.project]);
    } finally {
      await client.close();
    }
  }, 90_000);
});
