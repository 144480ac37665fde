// A sandboxed `npx -y <package>@<version>` whose version is not in any npx cache: the package is
// fetched from a fake registry on 127.0.0.1 (the entry's `npm_config_registry`) by a step that
// runs in the server's sandbox with only that registry reachable, then the server runs from
// the fetched copy in its own sandbox and answers a call. With the registry unreachable, the
// server fails with npm's reason in its status, never stays "starting".
import { existsSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupBridges, startBridge } from '../../helpers/bridgeProcess.js';
import { fakeNpmRegistry } from '../../helpers/fakeNpmRegistry.js';
import { connectProxy, tempDir, type ProxyHandle } from '../../helpers/proxyCli.js';
import { callText, TINY, userFolders } from '../../helpers/sandboxKit.js';

const open: ProxyHandle[] = [];
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const p of open.splice(0)) await p.close();
  await cleanupBridges();
});
afterAll(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function npxEntry(registry: string): Record<string, unknown> {
  return { command: 'npx', args: ['-y', 'tiny-mcp@1.0.0'], env: { npm_config_registry: registry }, sandbox: true };
}

/** A port nothing listens on: a server's, once it is closed. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe.skipIf(process.platform !== 'linux')('a sandboxed npx server whose package is not fetched yet', () => {
  it('is fetched from the registry inside the sandbox, then runs sandboxed and answers', async () => {
    const u = userFolders('sandbox-npx-');
    cleanups.push(u.remove);
    const work = tempDir('fake-registry-');
    cleanups.push(work.remove);
    const registry = await fakeNpmRegistry(work.path, 'tiny-mcp', '1.0.0', TINY);
    cleanups.push(registry.close);
    const file = join(u.root, 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { probe: npxEntry(registry.url) } }));
    const p = await connectProxy(['--config-file', file], {}, u.env);
    open.push(p);
    expect(await callText(p.client, 'probe__home', {})).toBe(`ok: ${u.home}`);
    expect(registry.requests).toContain('/tiny-mcp/-/tiny-mcp-1.0.0.tgz');
    const log = p.stderr.join('\n');
    expect(log).toContain(
      `sandbox: npx fetches tiny-mcp@1.0.0 inside the sandbox from the registry at 127.0.0.1:${registry.port}, the one host it reaches`,
    );
    expect(log).toContain('sandbox: runs tiny-mcp@1.0.0 from its private npm cache');
    // The fetch wrote the server's private npm cache, not the user's.
    expect(existsSync(join(u.home, '.npm', '_npx'))).toBe(false);
    const privateNpx = join(
      u.env.XDG_CONFIG_HOME,
      'qiming-mcp-runtime',
      'mcp',
      'sandbox',
      'probe',
      'home',
      '.npm',
      '_npx',
    );
    expect(existsSync(privateNpx)).toBe(true);
  }, 120_000);

  it("fails with npm's reason when the registry cannot be reached", async () => {
    const u = userFolders('sandbox-npx-');
    cleanups.push(u.remove);
    const registry = `http://127.0.0.1:${await closedPort()}/`;
    const bridge = await startBridge({ config: { mcpServers: { probe: npxEntry(registry) } }, env: u.env });
    const status = await bridge.waitServer('probe', (s) => s.state === 'failed', 90_000, 'its start to fail');
    expect(status.lastError).toContain('npx could not fetch tiny-mcp@1.0.0 inside the sandbox: ');
    expect(status.lastError).toMatch(/npm error/);
  }, 120_000);
});
