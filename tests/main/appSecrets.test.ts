// The app's secret store: a key kept by (fake) safeStorage, the panel's edit in the main
// process (ManagementService) keeping a typed value in the store and writing only its
// reference, and the real bridge, given the key in its environment as the app gives it,
// resolving that reference for a real server; old secret names (`<id>.<VAR>`) in the store and
// the config moved on the panel's first read. Without safeStorage: said, and nothing stored.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { oauthStoreKey, type SafeStorageLike } from '../../src/main/config/oauthStoreKey.js';
import { appSecretEnv, appSecretStore } from '../../src/main/config/appSecrets.js';
import { ManagementService } from '../../src/main/config/managementService.js';
import { memoryLogger, removeTempDirs, tempDir } from './mainHarness.js';
import { cleanupBridges, fixture, nodeEntry, startBridge } from '../helpers/bridgeProcess.js';
import { ensureBuilt } from '../helpers/proxyCli.js';

const VALUE = `ghp_${Math.random().toString(36).slice(2)}Kx7`;
const fakeSafe = (available: boolean): SafeStorageLike => ({
  isEncryptionAvailable: () => available,
  encryptString: (s) => Buffer.from(`enc:${Buffer.from(s).toString('base64')}`),
  decryptString: (b) => Buffer.from(String(b).slice(4), 'base64').toString(),
});

beforeAll(() => ensureBuilt());
afterEach(async () => {
  await cleanupBridges();
  removeTempDirs();
}, 30_000);

function appFolder(): { userData: string; configFile: string; env: NodeJS.ProcessEnv } {
  const userData = tempDir();
  const configFile = join(userData, 'mcp.json');
  writeFileSync(configFile, JSON.stringify({ mcpServers: {} }), { mode: 0o600 });
  return { userData, configFile, env: { QIMING_OAUTH_DIR: join(userData, 'oauth') } };
}

const echo = (env: Record<string, string>) => ({
  ...nodeEntry(fixture('envEchoServer.mjs'), [], { env }),
  kind: 'stdio' as const,
  secrets: 'store' as const,
});

describe("the app's secret store", () => {
  it('keeps a value typed in the panel under the safeStorage key, and the bridge resolves its reference', async () => {
    const { userData, configFile, env } = appFolder();
    const key = oauthStoreKey(userData, fakeSafe(true), memoryLogger().logger);
    const management = new ManagementService({
      configFile,
      bridge: () => Promise.reject(new Error('not needed')),
      secrets: appSecretStore(key, env),
    });
    const read = await management.getConfig();
    expect(read.ok && read.config.secretStore).toEqual({ backend: 'app', available: true });
    const r = await management.changeConfig({ op: 'add', id: 'gh', entry: echo({ GITHUB_TOKEN: VALUE }) });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const text = readFileSync(configFile, 'utf8');
    expect(JSON.parse(text).mcpServers.gh.env.GITHUB_TOKEN).toBe('${secret:gh/env/GITHUB_TOKEN}');
    // Nothing under the app's folder holds the value in clear.
    for (const f of readdirSync(userData, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()))
      expect(readFileSync(join(f.parentPath, f.name)).toString('latin1'), f.name).not.toContain(VALUE);

    const bridge = await startBridge({
      config: undefined,
      args: ['--config-file', configFile],
      env: { ...env, ...appSecretEnv(key) },
    });
    const { client } = await bridge.client('/mcp/gh');
    const out = (await client.callTool({ name: 'env', arguments: { name: 'GITHUB_TOKEN' } })) as {
      content: { text: string }[];
    };
    expect(out.content[0].text).toBe(VALUE);
    const status = await bridge.status();
    expect(status.bridge.secretStore).toEqual({ backend: 'app', available: true });
    expect(JSON.stringify(status) + bridge.stderr).not.toContain(VALUE);
  });

  it("moves the old names of the app's store on the panel's first read; the bridge gives each server its value", async () => {
    const { userData, configFile, env } = appFolder();
    const key = oauthStoreKey(userData, fakeSafe(true), memoryLogger().logger);
    const store = appSecretStore(key, env);
    const shared = `${VALUE}-shared`;
    await store.set('gh.GITHUB_TOKEN', VALUE);
    await store.set('gh.header.Authorization', shared);
    const entry = (vars: Record<string, string>) => nodeEntry(fixture('envEchoServer.mjs'), [], { env: vars });
    writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: {
          gh: entry({ GITHUB_TOKEN: '${secret:gh.GITHUB_TOKEN}' }),
          'gh.header': entry({ Authorization: '${secret:gh.header.Authorization}' }),
          other: entry({ TOKEN: '${secret:gh.GITHUB_TOKEN}' }),
        },
      }),
    );
    const management = new ManagementService({
      configFile,
      bridge: () => Promise.reject(new Error('not needed')),
      secrets: store,
    });
    const read = await management.getConfig();
    expect(read.ok, JSON.stringify(read)).toBe(true);
    expect(read.ok && read.config.warnings).toBeUndefined();
    const servers = JSON.parse(readFileSync(configFile, 'utf8')).mcpServers as Record<
      string,
      { env: Record<string, string> }
    >;
    expect(servers.gh.env).toEqual({ GITHUB_TOKEN: '${secret:gh/env/GITHUB_TOKEN}' });
    expect(servers['gh.header'].env).toEqual({ Authorization: '${secret:gh.header/env/Authorization}' });
    expect(servers.other.env).toEqual({ TOKEN: '${secret:gh.GITHUB_TOKEN}' });
    expect(await store.get('gh/env/GITHUB_TOKEN')).toBe(VALUE);
    expect(await store.get('gh.header/env/Authorization')).toBe(shared);
    expect(await store.get('gh.GITHUB_TOKEN')).toBe(VALUE);

    const bridge = await startBridge({
      config: undefined,
      args: ['--config-file', configFile],
      env: { ...env, ...appSecretEnv(key) },
    });
    const envOf = async (id: string, name: string) => {
      const { client } = await bridge.client(`/mcp/${id}`);
      const out = (await client.callTool({ name: 'env', arguments: { name } })) as { content: { text: string }[] };
      return out.content[0].text;
    };
    expect(await envOf('gh', 'GITHUB_TOKEN')).toBe(VALUE);
    expect(await envOf('gh.header', 'Authorization')).toBe(shared);
    expect(await envOf('other', 'TOKEN')).toBe(VALUE);
  });

  it('without safeStorage: the panel is told, a value for the store is refused, the bridge names the secret', async () => {
    const { userData, configFile, env } = appFolder();
    const key = oauthStoreKey(userData, fakeSafe(false), memoryLogger().logger);
    expect(key).toBeUndefined();
    const management = new ManagementService({
      configFile,
      bridge: () => Promise.reject(new Error('not needed')),
      secrets: appSecretStore(key, env),
    });
    const read = await management.getConfig();
    expect(read.ok && read.config.secretStore?.available).toBe(false);
    expect(read.ok && read.config.secretStore?.reason).toContain('safeStorage cannot encrypt');
    const r = await management.changeConfig({ op: 'add', id: 'gh', entry: echo({ GITHUB_TOKEN: VALUE }) });
    expect(r.ok).toBe(false);
    expect(r.error).toContain('safeStorage cannot encrypt');
    expect(readFileSync(configFile, 'utf8')).not.toContain(VALUE);

    writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: { gh: nodeEntry(fixture('envEchoServer.mjs'), [], { env: { T: '${secret:gh.T}' } }) },
      }),
    );
    const bridge = await startBridge({
      config: undefined,
      args: ['--config-file', configFile],
      env: { ...env, ...appSecretEnv(key) },
    });
    const gh = await bridge.waitServer('gh', (s) => s.state === 'failed', 20_000, 'failed');
    expect(gh.lastError).toContain('${secret:gh.T}');
    expect(gh.lastError).toContain("the app's safeStorage cannot encrypt here");
  });
});
