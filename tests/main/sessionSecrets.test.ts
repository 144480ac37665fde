// `${secret:NAME}` in a `persistent: false` entry, resolved from the app's secret store (a key
// kept by fake safeStorage) when AcpEngine builds a session's entries: the agent's stdio proxy
// (the built CLI, spawned here as an agent spawns it) starts the real server with the value,
// which travels in the proxy's environment and never in argv; a name the store lacks stays a
// reference, and that server alone fails in the session, naming it.
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpServerStdio } from '@agentclientprotocol/sdk';
import { AcpEngine, type AcpRuntimeLike } from '../../src/main/acp/acpEngine.js';
import { oauthStoreKey, type SafeStorageLike } from '../../src/main/config/oauthStoreKey.js';
import { appSecretStore } from '../../src/main/config/appSecrets.js';
import { nodeCommand } from '../../src/main/runtime/cliPath.js';
import { ensureCli, FIXTURES, memoryLogger, removeTempDirs, tempDir } from './mainHarness.js';

const VALUE = `sk-session${Math.random().toString(36).slice(2)}Q7`;
const fakeSafe: SafeStorageLike = {
  isEncryptionAvailable: () => true,
  encryptString: (s) => Buffer.from(`enc:${Buffer.from(s).toString('base64')}`),
  decryptString: (b) => Buffer.from(String(b).slice(4), 'base64').toString(),
};
const clients: Client[] = [];
let cli: string;

beforeAll(() => {
  cli = ensureCli();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  removeTempDirs();
}, 20_000);

const echo = (env: Record<string, string>) => ({
  command: process.execPath,
  args: [join(FIXTURES, 'envEchoServer.mjs')],
  env,
  persistent: false,
});

/** A runtime with no bridge servers: the session gets only `entries`, run by its own proxy. */
function runtimeWith(entries: Record<string, unknown>): AcpRuntimeLike {
  return {
    whenReady: () => Promise.resolve({ url: 'http://127.0.0.1:9', token: 'unused', port: 9, servers: [] }),
    mcpServerPlan: () => ({ bridgeIds: [], sessionEntries: entries }),
  };
}

/** Spawns the proxy entry as an agent does (its env exactly the entry's) and connects. */
async function connect(entry: McpServerStdio): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1' });
  clients.push(client);
  await client.connect(
    new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: Object.fromEntries(entry.env.map((e) => [e.name, e.value])),
      stderr: 'ignore',
    }),
  );
  return client;
}

const text = (r: unknown) => (r as { content: { text: string }[] }).content[0].text;

describe('${secret:NAME} in per-session entries', () => {
  it("is read from the app's store into the proxy's environment, and reaches the server", async () => {
    const userData = tempDir();
    const env = { QIMING_OAUTH_DIR: join(userData, 'oauth') };
    const store = appSecretStore(oauthStoreKey(userData, fakeSafe, memoryLogger().logger), env);
    await store.set('scratch/env/API_KEY', VALUE);
    const warnings: string[] = [];
    const logger = { ...memoryLogger().logger, warn: (m: string) => void warnings.push(m) };
    const engine = new AcpEngine({
      command: process.execPath,
      runtime: runtimeWith({
        scratch: echo({ API_KEY: '${secret:scratch/env/API_KEY}' }),
        lost: echo({ API_KEY: '${secret:lost.API_KEY}' }),
      }),
      mcp: { cliPath: cli, node: nodeCommand() },
      secrets: store,
      logger,
    });
    const [entry] = (await engine.sessionMcpServers()) as McpServerStdio[];
    expect(JSON.stringify(entry.args)).not.toContain(VALUE);
    expect(JSON.stringify(entry.args)).toContain('${secret:lost.API_KEY}');
    expect(entry.env.map((e) => e.value)).toContain(VALUE);
    expect(warnings.join('\n')).toContain(
      "${secret:lost.API_KEY} of a per-session server not resolved: it is not in the app's secret store",
    );
    expect(warnings.join('\n')).not.toContain(VALUE);

    const client = await connect(entry);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('scratch__env');
    // The one whose secret is missing fails alone in the session's proxy.
    expect(tools.some((t) => t.startsWith('lost__'))).toBe(false);
    expect(text(await client.callTool({ name: 'scratch__env', arguments: { name: 'API_KEY' } }))).toBe(VALUE);
  });

  it('without a store the reference is left for the proxy, which fails that server naming the secret', async () => {
    const warnings: string[] = [];
    const engine = new AcpEngine({
      command: process.execPath,
      runtime: runtimeWith({ scratch: echo({ API_KEY: '${secret:scratch.API_KEY}' }) }),
      mcp: { cliPath: cli, node: nodeCommand() },
      logger: { ...memoryLogger().logger, warn: (m: string) => void warnings.push(m) },
    });
    const [entry] = (await engine.sessionMcpServers()) as McpServerStdio[];
    expect(JSON.stringify(entry.args)).toContain('${secret:scratch.API_KEY}');
    expect(warnings.join('\n')).toContain('this app keeps no secret store');
  });
});
