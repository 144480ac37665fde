// The sandbox an install proposes, on the real bridge: a registry server's plan proposes the
// root its arguments name and the folder of the file a variable names as write paths and the host of the URL its variables hold as the
// network allow-list; the confirm writes the sandbox the user left (changed or not) into
// mcp.json; one the config refuses (a relative path) writes nothing and says the config's
// error; a re-install's changes name a sandbox that differs from the one proposed; a bundle's
// own folder is its installation, not a path proposed.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBridges, panelRequest, tempDir, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { startInstallBridge } from '../../helpers/installBridge.js';
import { FixtureRegistry } from '../../fixtures/registry/fixtureRegistry.js';
import { greeterBundle } from '../../fixtures/registry/bundles.js';

const FILES_DOC = JSON.parse(
  readFileSync(join(__dirname, '../../fixtures/registry/files-root.json'), 'utf8'),
) as Record<string, unknown>;

let registry: FixtureRegistry;
let bridge: BridgeProcess;
let file: string;
const project = join(tempDir('install-sandbox-root-'), 'project');
const state = join(dirname(project), 'state');
mkdirSync(project);
mkdirSync(state);

const json = async (method: string, path: string, body?: unknown) => {
  const r = await panelRequest(bridge, method, path, body);
  return { status: r.status, body: JSON.parse(r.body) as Record<string, any> };
};
const servers = () =>
  (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers;
const planFiles = async () => {
  const r = await json('POST', '/install/plan', {
    registry: { name: 'io.github.test/files' },
    values: { 'args.root': project, 'env.CACHE_FILE': join(state, 'cache.jsonl') },
  });
  expect(r.status).toBe(200);
  return r.body.plan;
};

beforeAll(async () => {
  registry = new FixtureRegistry({ servers: [FILES_DOC] });
  await registry.listen();
  ({ bridge, file } = await startInstallBridge(registry.url, 'install-sandbox-'));
}, 40_000);

afterAll(async () => {
  await cleanupBridges();
  await registry.close();
}, 30_000);

describe('the sandbox an install proposes', () => {
  it("proposes the root it is given and its URL's host; a refused sandbox writes nothing", async () => {
    const plan = await planFiles();
    // The cache file is not there yet: its folder is proposed.
    expect(plan.sandbox).toEqual({
      read: [],
      write: [project, state],
      network: { allow: ['index.example.com:8443'] },
    });

    const bad = await json('POST', '/install/confirm', {
      planId: plan.planId,
      sandbox: { filesystem: { read: ['relative/dir'] }, network: 'none' },
    });
    expect(bad.status).toBe(409);
    expect(bad.body.error).toContain(
      'server "files": sandbox.filesystem.read[0] ("relative/dir") must be an absolute path or start with ~',
    );
    expect(servers()).toEqual({});
  });

  it('writes the sandbox the consent was left with', async () => {
    const plan = await planFiles();
    const sandbox = { filesystem: { read: [project] }, network: { allow: ['index.example.com:8443'] } };
    const done = await json('POST', '/install/confirm', { planId: plan.planId, sandbox });
    expect(done.status).toBe(200);
    expect(servers().files.sandbox).toEqual(sandbox);
    expect(servers().files.args).toContain(project);
  });

  it("a re-install's changes name its sandbox beside the one proposed; the same one is not named", async () => {
    const again = await planFiles();
    expect(again.changes).toContain(
      `sandbox: files: read ${project}; network: only index.example.com:8443 → ` +
        `files: write ${project}, ${state}; network: only index.example.com:8443 (as proposed)`,
    );
    const proposed = { filesystem: { write: [project, state] }, network: { allow: ['index.example.com:8443'] } };
    expect((await json('POST', '/install/confirm', { planId: again.planId, sandbox: proposed })).status).toBe(200);
    const same = await planFiles();
    expect(same.changes).toEqual(['nothing: the same entry is written again']);
  });

  it("proposes no path for a bundle's own files", async () => {
    const data = (await greeterBundle()).toString('base64');
    const r = await json('POST', '/install/plan', { bundle: { fileName: 'greeter.mcpb', data } });
    expect(r.status).toBe(200);
    expect(r.body.plan.sandbox).toEqual({ read: [], write: [], network: 'none' });
  });
});
