// What an install writes is what its consent showed, taken literally: a `${NAME}` or
// `${secret:NAME}` in a bundle's manifest or a registry's server.json, or a `$` in a value the
// user typed, must not be expanded by the runtime when the server starts (it would hand the
// installed server the bridge's environment or another server's secret). On the real bridge,
// the installed bundle's server reports the text it was given.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBridges, panelRequest, startBridge, tempDir, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { waitFor } from '../../helpers/waitFor.js';
import { FixtureRegistry } from '../../fixtures/registry/fixtureRegistry.js';
import { greeterBundle, greeterManifest } from '../../fixtures/registry/bundles.js';
import { loadConfig } from '../../../src/proxy/config/config.js';

const VICTIM = 'victim-value-6f1c2a';

let registry: FixtureRegistry;
let bridge: BridgeProcess;
let file: string;

const json = async (method: string, path: string, body?: unknown) => {
  const r = await panelRequest(bridge, method, path, body);
  return { status: r.status, body: JSON.parse(r.body) as Record<string, any> };
};

beforeAll(async () => {
  registry = new FixtureRegistry({
    servers: [
      {
        $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
        name: 'io.github.example/literal',
        description: 'Values with dollars.',
        version: '1.0.0',
        packages: [
          {
            registryType: 'npm',
            identifier: '@example/literal',
            version: '1.0.0',
            transport: { type: 'stdio' },
            packageArguments: [{ type: 'positional', value: '--key=${secret:other.API_KEY}' }],
            environmentVariables: [
              { name: 'FIXED', value: '${VICTIM_TOKEN}' },
              { name: 'TYPED', description: 'typed by the user' },
            ],
          },
        ],
      },
    ],
  });
  await registry.listen();
  const dir = tempDir('install-literal-');
  file = join(dir, 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: {} }));
  bridge = await startBridge({
    config: file,
    env: { QIMING_REGISTRY_URL: registry.url, QIMING_DATA_DIR: join(dir, 'data'), VICTIM_TOKEN: VICTIM },
  });
}, 40_000);

afterAll(async () => {
  await cleanupBridges();
  await registry.close();
}, 30_000);

describe('an install is written literally', () => {
  it("a bundle's ${NAME} and a typed $ reach the server as shown, not expanded", async () => {
    const m = greeterManifest();
    const server = m.server as { mcp_config: { env: Record<string, string> } };
    server.mcp_config.env.GREETING_STYLE = '${user_config.style} ${VICTIM_TOKEN}';
    const typed = 'a$$b ${HOME}';
    const r = await json('POST', '/install/plan', {
      bundle: { fileName: 'greeter.mcpb', data: (await greeterBundle(m)).toString('base64') },
      values: { style: typed, token: 'tok' },
    });
    expect(r.status).toBe(200);
    const shownStyle = `${typed} \${VICTIM_TOKEN}`;
    expect(r.body.plan.env).toContainEqual({ name: 'GREETING_STYLE', value: shownStyle, secret: false });
    const done = await json('POST', '/install/confirm', { planId: r.body.plan.planId });
    expect(done.body.serverId).toBe('greeter');
    const state = async () =>
      ((await json('GET', '/status')).body.servers as { id: string; state: string }[]).find((s) => s.id === 'greeter')
        ?.state;
    await waitFor(async () => (await state()) === 'ready', 30_000, 'greeter ready');
    const call = await json('POST', '/servers/greeter/tools/call', { name: 'greet', arguments: { name: 'Ada' } });
    const text = JSON.stringify(call.body);
    expect(text).not.toContain(VICTIM);
    expect(text).toContain(JSON.stringify(`hello Ada from ${shownStyle}`).slice(1, -1));
  }, 60_000);

  it("a registry package's ${...} and a typed $ stay literal in the entry it writes", async () => {
    const typed = '/tmp/$${x}/${VICTIM_TOKEN}';
    const r = await json('POST', '/install/plan', {
      registry: { name: 'io.github.example/literal' },
      values: { 'env.TYPED': typed },
    });
    expect(r.status).toBe(200);
    expect(r.body.plan.shown).toContain('${secret:other.API_KEY}');
    expect(r.body.plan.env).toEqual([
      { name: 'FIXED', value: '${VICTIM_TOKEN}', secret: false },
      { name: 'TYPED', value: typed, secret: false },
    ]);
    const done = await json('POST', '/install/confirm', { planId: r.body.plan.planId });
    expect(done.status).toBe(200);
    // The runtime's own loader reads the entry back as the consent showed it.
    const config = loadConfig(file, { env: { VICTIM_TOKEN: VICTIM } });
    const entry = config.servers.find((s) => s.id === 'literal');
    expect(config.invalid?.map((e) => e.id)).not.toContain('literal');
    expect(entry).toMatchObject({
      kind: 'stdio',
      args: ['-y', '@example/literal@1.0.0', '--key=${secret:other.API_KEY}'],
      env: { FIXED: '${VICTIM_TOKEN}', TYPED: typed },
    });
    expect(readFileSync(file, 'utf8')).not.toContain(VICTIM);
  });
});
