// `${secret:NAME}` in the real bridge (the built CLI) against a real Secret Service (a private
// gnome-keyring on a private session bus): resolved into a real server's environment, never
// written to the config file, the log or the status; a name the keychain lacks fails that server
// alone, naming it; without any Secret Service the status, the log and the server say so.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupBridges, fixture, nodeEntry, panelRequest, startBridge, tempDir } from '../../helpers/bridgeProcess.js';
import { ensureBuilt } from '../../helpers/proxyCli.js';
import { useSecretService } from '../../helpers/secretService.js';
import { waitFor } from '../../helpers/waitFor.js';

const keyring = useSecretService();
const VALUE = `sk-live-${Math.random().toString(36).slice(2)}Zq9`;

beforeAll(() => ensureBuilt());
afterEach(() => cleanupBridges(), 30_000);

function echoEntry(env: Record<string, string>): Record<string, unknown> {
  return nodeEntry(fixture('envEchoServer.mjs'), [], { env: { ECHO_VARS: Object.keys(env).join(','), ...env } });
}

function setup(servers: Record<string, unknown>): { dir: string; file: string; log: string } {
  const dir = tempDir('qiming-secrets-');
  const file = join(dir, 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2), { mode: 0o600 });
  return { dir, file, log: join(dir, 'proxy.log') };
}

async function envOf(bridge: Awaited<ReturnType<typeof startBridge>>, id: string, name: string): Promise<string> {
  const { client } = await bridge.client(`/mcp/${id}`);
  const r = (await client.callTool({ name: 'env', arguments: { name } })) as { content: { text: string }[] };
  return r.content[0].text;
}

describe('${secret:NAME} in the bridge, with a Secret Service', () => {
  it('resolves the value from the keychain into the server, and no file, log or status holds it', async () => {
    keyring.set('demo-api-key', VALUE);
    const { file, log } = setup({
      demo: echoEntry({ API_KEY: '${secret:demo-api-key}' }),
      lost: echoEntry({ API_KEY: '${secret:lost.API_KEY}' }),
    });
    const bridge = await startBridge({
      config: undefined,
      args: ['--config-file', file],
      env: { ...keyring.env, MCP_PROXY_LOG_FILE: log },
    });
    expect(await envOf(bridge, 'demo', 'API_KEY')).toBe(VALUE);

    // The missing one fails alone, naming the secret and where it was looked for.
    const lost = await bridge.waitServer('lost', (s) => s.state === 'failed', 20_000, 'failed');
    expect(lost.lastError).toContain('${secret:lost.API_KEY}');
    expect(lost.lastError).toContain('not in the OS keychain');
    const status = await bridge.status();
    expect(status.bridge.secretStore).toEqual({ backend: 'keyring', available: true });

    // The server printed its key on stderr: the log has it masked.
    await waitFor(() => readFileSync(log, 'utf8').includes('starting with API_KEY='), 10_000, 'the banner in the log');
    const configRead = await panelRequest(bridge, 'GET', '/config');
    for (const [what, text] of [
      ['mcp.json', readFileSync(file, 'utf8')],
      ['the log file', readFileSync(log, 'utf8')],
      ['stderr', bridge.stderr],
      ['/status', JSON.stringify(await bridge.status())],
      ['GET /config', configRead.body],
    ])
      expect(text, what).not.toContain(VALUE);
    expect(JSON.parse(configRead.body).servers[0].env.API_KEY).toBe('${secret:demo-api-key}');
  });

  it("the panel's route keeps a new value in the keychain and writes only its reference", async () => {
    const { file, log } = setup({ other: echoEntry({ MODE: 'plain' }) });
    const bridge = await startBridge({
      config: undefined,
      args: ['--config-file', file],
      env: { ...keyring.env, MCP_PROXY_LOG_FILE: log },
    });
    const typed = `${VALUE}-typed`;
    const add = await panelRequest(bridge, 'POST', '/config/servers', {
      id: 'typed',
      entry: { ...echoEntry({ TOKEN: typed }), kind: 'stdio', secrets: 'store' },
    });
    expect(add.status, add.body).toBe(200);
    expect(keyring.get('typed/env/TOKEN')).toBe(typed);
    const written = JSON.parse(readFileSync(file, 'utf8')) as {
      mcpServers: Record<string, { env: Record<string, string> }>;
    };
    expect(written.mcpServers.typed.env.TOKEN).toBe('${secret:typed/env/TOKEN}');
    // The bridge applied it: the server runs with the value.
    await bridge.waitServer('typed', (s) => s.state === 'ready', 20_000, 'ready');
    expect(await envOf(bridge, 'typed', 'TOKEN')).toBe(typed);
    for (const text of [
      readFileSync(file, 'utf8'),
      readFileSync(log, 'utf8'),
      JSON.stringify(await bridge.status()),
      add.body,
    ])
      expect(text).not.toContain(typed);
  });
});

describe('${secret:NAME} without a Secret Service', () => {
  it('says so in the status, the log and the server, runs the others, and refuses to store', async () => {
    const dir = tempDir('qiming-nobus-');
    const { file, log } = setup({
      demo: echoEntry({ API_KEY: '${secret:demo-api-key}' }),
      plain: echoEntry({ MODE: 'plain' }),
    });
    const bridge = await startBridge({
      config: undefined,
      args: ['--config-file', file],
      // A bus that is not there: what a machine without a keychain daemon gives.
      env: { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'no-bus')}`, HOME: dir, MCP_PROXY_LOG_FILE: log },
    });
    expect(await envOf(bridge, 'plain', 'MODE')).toBe('plain');
    const demo = await bridge.waitServer('demo', (s) => s.state === 'failed', 20_000, 'failed');
    expect(demo.lastError).toContain('${secret:demo-api-key}');
    expect(demo.lastError).toContain('the OS keychain cannot be used here');
    const store = (await bridge.status()).bridge.secretStore;
    expect(store?.available).toBe(false);
    expect(store?.reason).toContain('the OS keychain cannot be used here');
    expect(readFileSync(log, 'utf8')).toMatch(/secrets.*the OS keychain cannot be used here/);

    // The panel is told, and a value marked for the store is not written to the file instead.
    expect(JSON.parse((await panelRequest(bridge, 'GET', '/config')).body).secretStore.available).toBe(false);
    const add = await panelRequest(bridge, 'POST', '/config/servers', {
      id: 'typed',
      entry: { ...echoEntry({ TOKEN: VALUE }), kind: 'stdio', secrets: 'store' },
    });
    expect(add.status).toBe(400);
    expect(JSON.parse(add.body).error).toContain('Untick');
    expect(readFileSync(file, 'utf8')).not.toContain(VALUE);
  });
});
