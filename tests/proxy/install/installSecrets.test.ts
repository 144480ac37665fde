// An install's secret goes to the keychain when there is one: with a real Secret Service (a
// private gnome-keyring on its own session bus), the consent says where secrets will be kept,
// the confirm stores the bundle's sensitive value there and writes only its reference into the
// config file, and the running server gets the value; the file, the bridge's log and its
// status never hold it; uninstalling forgets it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBridges, panelRequest, startBridge, tempDir, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { startSecretService, type SecretService } from '../../helpers/secretService.js';
import { waitFor } from '../../helpers/waitFor.js';
import { greeterBundle } from '../../fixtures/registry/bundles.js';

const TOKEN = 'tok-kept-in-keychain-42';

let keyring: SecretService;
let bridge: BridgeProcess;
let file: string;
let log: string;

const json = async (method: string, path: string, body?: unknown) => {
  const r = await panelRequest(bridge, method, path, body);
  return { status: r.status, body: JSON.parse(r.body) as Record<string, any> };
};

beforeAll(async () => {
  keyring = await startSecretService();
  const dir = tempDir('install-secrets-');
  file = join(dir, 'mcp.json');
  log = join(dir, 'bridge.log');
  writeFileSync(file, JSON.stringify({ mcpServers: {} }));
  bridge = await startBridge({
    config: file,
    env: { ...keyring.env, QIMING_DATA_DIR: join(dir, 'data'), MCP_PROXY_LOG_FILE: log },
  });
}, 60_000);

afterAll(async () => {
  await cleanupBridges();
  await keyring?.stop();
}, 30_000);

describe('an install with a secret, where there is a keychain', () => {
  it('keeps the value in the keychain and only its reference in the config file', async () => {
    const plan = await json('POST', '/install/plan', {
      bundle: { fileName: 'greeter.mcpb', data: (await greeterBundle()).toString('base64') },
      values: { token: TOKEN },
    });
    expect(plan.status).toBe(200);
    expect(plan.body.plan.secretsKept).toBe('store');
    expect(JSON.stringify(plan.body)).not.toContain(TOKEN);

    const done = await json('POST', '/install/confirm', { planId: plan.body.plan.planId });
    expect(done.body.serverId).toBe('greeter');
    const env = JSON.parse(readFileSync(file, 'utf8')).mcpServers.greeter.env;
    expect(env).toEqual({ GREETING_STYLE: 'warm', GREETER_TOKEN: '${secret:greeter/env/GREETER_TOKEN}' });
    expect(keyring.get('greeter/env/GREETER_TOKEN')).toBe(TOKEN);

    const state = async () =>
      ((await json('GET', '/status')).body.servers as { id: string; state: string }[]).find((s) => s.id === 'greeter')
        ?.state;
    await waitFor(async () => (await state()) === 'ready', 30_000, 'greeter ready');
    const call = await json('POST', '/servers/greeter/tools/call', { name: 'greet', arguments: { name: 'Ada' } });
    expect(JSON.stringify(call.body)).toContain(`with a token of ${TOKEN.length} characters`);

    expect(readFileSync(file, 'utf8')).not.toContain(TOKEN);
    expect(readFileSync(log, 'utf8')).not.toContain(TOKEN);
    expect(JSON.stringify((await json('GET', '/status')).body)).not.toContain(TOKEN);
    expect(JSON.stringify((await json('GET', '/config')).body)).not.toContain(TOKEN);

    // Uninstall forgets it too.
    const gone = await json('POST', '/install/uninstall', { id: 'greeter' });
    expect(gone.body.ok).toBe(true);
    expect(keyring.get('greeter/env/GREETER_TOKEN')).toBeUndefined();
  }, 90_000);
});
