// Installing through the bridge's /install routes on the real built bridge: a plan writes
// nothing and shows the exact command with secrets masked; a confirm writes the entry and the
// bridge starts the server (an npm package that npx runs offline from node_modules, and a
// .mcpb bundle with a Node server inside); a plan is used once; a registry's mcpb package is
// fetched only at its plan's confirm, and a bundle whose sha256 is not the one its server.json
// gives is refused there; uninstall removes the entry, the folder and the record.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBridges, panelRequest, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { waitFor } from '../../helpers/waitFor.js';
import { startInstallBridge } from '../../helpers/installBridge.js';
import { FixtureRegistry } from '../../fixtures/registry/fixtureRegistry.js';
import { greeterBundle } from '../../fixtures/registry/bundles.js';

const FIXTURES = join(__dirname, '../../fixtures/registry');
const doc = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>;

let registry: FixtureRegistry;
let bridge: BridgeProcess;
let file: string;
let dataDir: string;
let bundle: Buffer;

const req = (method: string, path: string, body?: unknown) => panelRequest(bridge, method, path, body);
async function json(method: string, path: string, body?: unknown) {
  const r = await req(method, path, body);
  return { status: r.status, body: JSON.parse(r.body) as Record<string, any> };
}
async function serverState(id: string): Promise<string | undefined> {
  const status = (await json('GET', '/status')).body as { servers: { id: string; state: string }[] };
  return status.servers.find((s) => s.id === id)?.state;
}

function mcpbServerJson(name: string, sha: string): Record<string, unknown> {
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name,
    description: 'A greeter shipped as an MCP bundle.',
    version: '1.0.0',
    packages: [
      {
        registryType: 'mcpb',
        identifier: `${registry.url}/bundles/greeter.mcpb`,
        version: '1.0.0',
        fileSha256: sha,
        transport: { type: 'stdio' },
      },
    ],
  };
}

beforeAll(async () => {
  bundle = await greeterBundle();
  const sha = createHash('sha256').update(bundle).digest('hex');
  registry = new FixtureRegistry({
    servers: [doc('memory.json'), doc('with-remote.json')],
    bundles: { 'greeter.mcpb': bundle },
  });
  await registry.listen();
  // The documents that point at the registry's own URL, known once it listens.
  (registry as unknown as { o: { servers: unknown[] } }).o.servers.push(
    mcpbServerJson('io.github.example/greeter', sha),
    mcpbServerJson('io.github.example/tampered', 'f'.repeat(64)),
  );
  ({ bridge, file, dataDir } = await startInstallBridge(registry.url, 'install-routes-'));
}, 40_000);

afterAll(async () => {
  await cleanupBridges();
  await registry.close();
}, 30_000);

/** What a re-install's changes say of an entry written without a sandbox (Windows proposes none). */
const noSandboxYet =
  process.platform === 'win32'
    ? []
    : ["sandbox: none of its own (the config's default) → files: none of yours; network: none (as proposed)"];

describe('install routes', () => {
  it('search answers the registry page with what is installed', async () => {
    const r = await json('GET', '/install/registry/servers?search=memory');
    expect(r.status).toBe(200);
    expect(r.body.registry).toBe(registry.url);
    expect(r.body.servers).toEqual([
      expect.objectContaining({
        name: 'io.github.modelcontextprotocol/memory',
        version: '2026.8.31',
        publisher: 'io.github.modelcontextprotocol',
        transports: ['npm (stdio)'],
      }),
    ]);
    expect(r.body.servers[0].installed).toBeUndefined();
  });

  it('an npm server: the plan writes nothing, the confirm installs it and the bridge runs it', async () => {
    const before = readFileSync(file, 'utf8');
    const asked = await json('POST', '/install/plan', { registry: { name: 'io.github.modelcontextprotocol/memory' } });
    expect(asked.status).toBe(200);
    expect(asked.body.plan.missing).toEqual(['MEMORY_FILE_PATH']);
    const refused = await json('POST', '/install/confirm', { planId: asked.body.plan.planId });
    expect(refused.body.error).toMatch(/values are still needed: MEMORY_FILE_PATH/);
    const memFile = join(dataDir, 'memory.jsonl');
    const r = await json('POST', '/install/plan', {
      registry: { name: 'io.github.modelcontextprotocol/memory' },
      values: { 'env.MEMORY_FILE_PATH': memFile },
    });
    const plan = r.body.plan;
    expect(plan.shown).toBe('npx -y @modelcontextprotocol/server-memory@2026.8.31');
    expect(plan.source).toEqual({
      kind: 'registry',
      registry: registry.url,
      name: 'io.github.modelcontextprotocol/memory',
      version: '2026.8.31',
    });
    expect(plan.runtime).toEqual(expect.objectContaining({ command: 'npx', found: true }));
    expect(plan.env).toEqual([{ name: 'MEMORY_FILE_PATH', value: memFile, secret: false }]);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(await serverState('memory')).toBeUndefined();

    const done = await json('POST', '/install/confirm', { planId: plan.planId });
    expect(done.body).toEqual(expect.objectContaining({ ok: true, serverId: 'memory', replaced: false }));
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.memory).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory@2026.8.31'],
      env: { MEMORY_FILE_PATH: memFile },
    });
    await waitFor(async () => (await serverState('memory')) === 'ready', 60_000, 'memory ready');
    const again = await json('POST', '/install/confirm', { planId: plan.planId });
    expect(again.status).toBe(404);
    const search = await json('GET', '/install/registry/servers?search=memory');
    expect(search.body.servers[0].installed).toBe('memory');
    const re = await json('POST', '/install/plan', {
      registry: { name: 'io.github.modelcontextprotocol/memory' },
      values: { 'env.MEMORY_FILE_PATH': memFile },
    });
    // Installed without a sandbox of its own: the consent's proposal (On) is a change.
    expect(re.body.plan.changes).toEqual(
      noSandboxYet.length ? noSandboxYet : ['nothing: the same entry is written again'],
    );
  }, 90_000);

  it('a newer registry version of an installed server is said, and a re-install plan shows what changes', async () => {
    (registry as unknown as { o: { servers: unknown[] } }).o.servers.push({
      ...doc('memory.json'),
      version: '2026.9.1',
    });
    const search = await json('GET', '/install/registry/servers?search=memory');
    expect(search.body.servers[0]).toEqual(
      expect.objectContaining({ installed: 'memory', installedVersion: '2026.8.31', update: '2026.9.1' }),
    );
    const re = await json('POST', '/install/plan', {
      registry: { name: 'io.github.modelcontextprotocol/memory' },
      values: { 'env.MEMORY_FILE_PATH': join(dataDir, 'memory.jsonl') },
    });
    expect(re.body.plan.serverId).toBe('memory');
    expect(re.body.plan.changes).toEqual(['version 2026.8.31 → 2026.9.1', ...noSandboxYet]);
  });

  it('a bundle file: shown with its folder, tools and masked secret; installed, run, uninstalled', async () => {
    const data = bundle.toString('base64');
    const r = await json('POST', '/install/plan', {
      bundle: { fileName: 'greeter.mcpb', data },
      values: { token: 'tok-never-shown-123' },
    });
    expect(r.status).toBe(200);
    const plan = r.body.plan;
    const folder = join(dataDir, 'bundles', 'greeter');
    expect(plan.shown).toBe(`node ${folder}/server/index.js`);
    expect(plan.folder).toBe(folder);
    expect(plan.author).toBe('Test Author');
    expect(plan.tools).toEqual(['greet']);
    expect(plan.prompts).toEqual(['welcome']);
    expect(plan.checksum).toMatch(/^none: a file you opened/);
    expect(plan.env).toEqual([
      { name: 'GREETING_STYLE', value: 'warm', secret: false },
      { name: 'GREETER_TOKEN', value: '********', secret: true },
    ]);
    expect(plan.secretsOnCommandLine).toEqual([]);
    expect(JSON.stringify(plan)).not.toContain('tok-never-shown-123');
    // No keychain here (the suite's session bus leads nowhere): the secret stays in the 0600 file, as the plan says.
    expect(plan.secretsKept).toBe('config');
    expect(existsSync(folder)).toBe(false);

    const done = await json('POST', '/install/confirm', { planId: plan.planId });
    expect(done.body.serverId).toBe('greeter');
    expect(existsSync(join(folder, 'server/index.js'))).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.greeter.args).toEqual([
      '${QIMING_DATA_DIR}/bundles/greeter/server/index.js',
    ]);
    await waitFor(async () => (await serverState('greeter')) === 'ready', 30_000, 'greeter ready');
    const call = await json('POST', '/servers/greeter/tools/call', { name: 'greet', arguments: { name: 'Ada' } });
    expect(JSON.stringify(call.body)).toContain('hello Ada from warm');

    const gone = await json('POST', '/install/uninstall', { id: 'greeter' });
    expect(gone.body).toEqual(expect.objectContaining({ ok: true, removedFolder: folder }));
    expect(existsSync(folder)).toBe(false);
    expect(readdirSync(join(dataDir, 'bundles'))).toEqual([]);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.greeter).toBeUndefined();
    await waitFor(async () => (await serverState('greeter')) === undefined, 30_000, 'greeter gone');
    expect(JSON.parse(readFileSync(join(dataDir, 'installs.json'), 'utf8')).greeter).toBeUndefined();
  }, 60_000);

  it('a registry mcpb package: nothing is fetched before its confirm; then its sha256 is checked and its own plan shown', async () => {
    const bundleUrl = `${registry.url}/bundles/greeter.mcpb`;
    const fetched = () => registry.requests.filter((u) => u.startsWith('/bundles/'));
    const bad = await json('POST', '/install/plan', { registry: { name: 'io.github.example/tampered' } });
    expect(bad.status).toBe(200);
    expect(bad.body.plan.download).toEqual({ url: bundleUrl, sha256: 'f'.repeat(64) });
    expect(bad.body.plan.shown).toBe(bundleUrl);
    const asked = await json('POST', '/install/plan', { registry: { name: 'io.github.example/greeter' } });
    expect(asked.body.plan.download).toEqual({
      url: bundleUrl,
      sha256: createHash('sha256').update(bundle).digest('hex'),
    });
    expect(asked.body.plan.inputs).toEqual([]);
    expect(fetched()).toEqual([]);

    const refused = await json('POST', '/install/confirm', { planId: bad.body.plan.planId });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/sha256 is [a-f0-9]{64}, not the f{64} its server\.json gives: refused/);
    expect(readdirSync(join(dataDir, 'bundles'))).toEqual([]);

    const downloaded = await json('POST', '/install/confirm', { planId: asked.body.plan.planId });
    expect(downloaded.status).toBe(200);
    expect(downloaded.body.serverId).toBeUndefined();
    const plan = downloaded.body.plan;
    expect(plan.checksum).toBe('sha256 verified against server.json');
    expect(plan.source.kind).toBe('registry');
    expect(plan.shown).toBe(`node ${join(dataDir, 'bundles', 'greeter')}/server/index.js`);
    expect(plan.missing).toEqual(['API token']);
    expect(fetched()).toEqual(['/bundles/greeter.mcpb', '/bundles/greeter.mcpb']);
    // Its values make the bundle's plan again from the bytes kept: nothing is fetched again.
    const given = await json('POST', '/install/plan', { from: plan.planId, values: { token: 't' } });
    expect(given.body.plan.missing).toEqual([]);
    expect(given.body.plan.download).toBeUndefined();
    expect(fetched()).toHaveLength(2);
    expect(readdirSync(join(dataDir, 'bundles'))).toEqual([]);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.greeter).toBeUndefined();
  });

  it("a registry mcpb package's download follows no redirect to another http origin", async () => {
    const other = new FixtureRegistry({ servers: [], bundles: { 'greeter.mcpb': bundle } });
    await other.listen();
    try {
      const sha = createHash('sha256').update(bundle).digest('hex');
      const doc = mcpbServerJson('io.github.example/moved', sha) as { packages: { identifier: string }[] };
      doc.packages[0].identifier = `${registry.url}/moved/greeter.mcpb`;
      (registry as unknown as { o: { servers: unknown[]; redirects: Record<string, string> } }).o.servers.push(doc);
      (registry as unknown as { o: { redirects: Record<string, string> } }).o.redirects = {
        '/moved/greeter.mcpb': `${other.url}/bundles/greeter.mcpb`,
      };
      const asked = await json('POST', '/install/plan', { registry: { name: 'io.github.example/moved' } });
      const r = await json('POST', '/install/confirm', { planId: asked.body.plan.planId });
      expect(r.status).toBe(502);
      expect(r.body.error).toContain(`redirected to ${other.url}, neither its own origin nor https: refused`);
      expect(other.requests).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('a remote: the plan shows the URL and masks the secret header', async () => {
    const r = await json('POST', '/install/plan', {
      registry: { name: 'io.github.user/remote-weather' },
      values: { 'headers.Authorization': 'Bearer hidden-value-9' },
    });
    expect(r.body.plan.shown).toBe('https://api.example.com/mcp');
    expect(r.body.plan.headers).toEqual([{ name: 'Authorization', value: '********', secret: true }]);
    expect(JSON.stringify(r.body)).not.toContain('hidden-value-9');
  });

  it('a change needs JSON and an Origin; an unknown plan is 404', async () => {
    expect(
      (await panelRequest(bridge, 'POST', '/install/confirm', 'planId=x', { 'Content-Type': 'text/plain' })).status,
    ).toBe(415);
    expect((await panelRequest(bridge, 'POST', '/install/plan', {}, { Authorization: '' })).status).toBe(401);
    expect((await json('POST', '/install/confirm', { planId: 'nope' })).status).toBe(404);
  });
});
