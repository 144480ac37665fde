// Secret names in the real bridge (the built CLI) against a real Secret Service (a private
// gnome-keyring): a stdio entry `gh.header` with env `Authorization` and a remote `gh` with an
// `Authorization` header, both kept in the keychain by the panel's routes, each get their own
// value after a restart; and a keychain and config from before, which use the old ambiguous
// names (`<id>.<VAR>`, `<id>.header.<Name>`), are moved on the panel's first read: each entry's
// own reference renamed with its value copied, the old item kept for every other reference
// (which still finds it), the shared name reported, and each server started with its value.
// A renamed entry's secret follows it, so a new entry under its old id cannot replace it.
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupBridges,
  fixture,
  nodeEntry,
  panelRequest,
  startBridge,
  tempDir,
  type BridgeProcess,
} from '../../helpers/bridgeProcess.js';
import { ensureBuilt } from '../../helpers/proxyCli.js';
import { useSecretService } from '../../helpers/secretService.js';
import { waitFor } from '../../helpers/waitFor.js';
import { SECRET_MASK } from '../../../src/shared/configContract.js';

const keyring = useSecretService();
const tag = () => Math.random().toString(36).slice(2);

beforeAll(() => ensureBuilt());
afterEach(() => cleanupBridges(), 30_000);

/** An HTTP server on 127.0.0.1 that records the Authorization header of each request (and answers 404). */
async function headerRecorder(): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    if (typeof req.headers.authorization === 'string') seen.push(req.headers.authorization);
    req.resume();
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function echoEntry(env: Record<string, string>): Record<string, unknown> {
  return nodeEntry(fixture('envEchoServer.mjs'), [], { env });
}

function configFile(servers: Record<string, unknown>): string {
  const file = join(tempDir('qiming-secret-names-'), 'mcp.json');
  writeFileSync(file, `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`, { mode: 0o600 });
  return file;
}

const bridgeOn = (file: string) =>
  startBridge({ config: undefined, args: ['--config-file', file], env: { ...keyring.env } });

/** Stops `bridge` (its servers with it) and starts another on the same file: every value is read from the keychain again. */
async function restart(bridge: BridgeProcess, file: string): Promise<BridgeProcess> {
  bridge.child.kill('SIGTERM');
  await bridge.exited;
  return bridgeOn(file);
}

async function envOf(bridge: BridgeProcess, id: string, name: string): Promise<string> {
  await bridge.waitServer(id, (s) => s.state === 'ready', 20_000, 'ready');
  const { client } = await bridge.client(`/mcp/${id}`);
  const r = (await client.callTool({ name: 'env', arguments: { name } })) as { content: { text: string }[] };
  return r.content[0].text;
}

const servers = (file: string) =>
  (
    JSON.parse(readFileSync(file, 'utf8')) as {
      mcpServers: Record<string, { env?: Record<string, string>; headers?: Record<string, string> }>;
    }
  ).mcpServers;

describe('secret names with a Secret Service (real bridge, real gnome-keyring)', () => {
  it('a stdio "gh.header" (env Authorization) and a remote "gh" (header Authorization) each keep their own value', async () => {
    const stdioToken = `stdio-${tag()}`;
    const remoteToken = `remote-${tag()}`;
    const remote = await headerRecorder();
    try {
      const file = configFile({});
      let bridge = await bridgeOn(file);
      const stdio = await panelRequest(bridge, 'POST', '/config/servers', {
        id: 'gh.header',
        entry: { ...echoEntry({ Authorization: stdioToken }), kind: 'stdio', secrets: 'store' },
      });
      expect(stdio.status, stdio.body).toBe(200);
      const url = await panelRequest(bridge, 'POST', '/config/servers', {
        id: 'gh',
        entry: { kind: 'remote', url: remote.url, headers: { Authorization: remoteToken }, secrets: 'store' },
      });
      expect(url.status, url.body).toBe(200);

      remote.seen.length = 0;
      bridge = await restart(bridge, file);
      expect(await envOf(bridge, 'gh.header', 'Authorization')).toBe(stdioToken);
      await waitFor(() => remote.seen.length > 0, 20_000, 'the remote asked');
      expect(new Set(remote.seen)).toEqual(new Set([remoteToken]));
      expect(servers(file)['gh.header'].env).toEqual({ Authorization: '${secret:gh.header/env/Authorization}' });
      expect(servers(file).gh.headers).toEqual({ Authorization: '${secret:gh/header/Authorization}' });
      expect(keyring.get('gh.header/env/Authorization')).toBe(stdioToken);
      expect(keyring.get('gh/header/Authorization')).toBe(remoteToken);
    } finally {
      await remote.close();
    }
  });

  it("a renamed entry's secret follows it: a new entry under the old name stores its own value beside it", async () => {
    const first = `first-${tag()}`;
    const second = `second-${tag()}`;
    const work = await headerRecorder();
    const fresh = await headerRecorder();
    try {
      const file = configFile({});
      let bridge = await bridgeOn(file);
      const add = await panelRequest(bridge, 'POST', '/config/servers', {
        id: 'api',
        entry: { kind: 'remote', url: work.url, headers: { Authorization: first }, secrets: 'store' },
      });
      expect(add.status, add.body).toBe(200);
      const rename = await panelRequest(bridge, 'PUT', '/config/servers/api', {
        newId: 'api-work',
        entry: { kind: 'remote', url: work.url, headers: { Authorization: SECRET_MASK } },
      });
      expect(rename.status, rename.body).toBe(200);
      expect(servers(file)['api-work'].headers).toEqual({ Authorization: '${secret:api-work/header/Authorization}' });
      const again = await panelRequest(bridge, 'POST', '/config/servers', {
        id: 'api',
        entry: { kind: 'remote', url: fresh.url, headers: { Authorization: second }, secrets: 'store' },
      });
      expect(again.status, again.body).toBe(200);

      work.seen.length = 0;
      fresh.seen.length = 0;
      bridge = await restart(bridge, file);
      await waitFor(() => work.seen.length > 0 && fresh.seen.length > 0, 20_000, 'both remotes asked');
      expect(new Set(work.seen)).toEqual(new Set([first]));
      expect(new Set(fresh.seen)).toEqual(new Set([second]));
    } finally {
      await work.close();
      await fresh.close();
    }
  });

  it('moves the old names of a keychain and config from before on the first read; every reference still finds its value', async () => {
    const own = `ghp_${tag()}`;
    const shared = `shared-${tag()}`;
    const stdioToken = `stdio-again-${tag()}`;
    keyring.set('github.GITHUB_TOKEN', own);
    keyring.set('hub.header.Authorization', shared);
    const remote = await headerRecorder();
    try {
      const file = configFile({
        github: echoEntry({ GITHUB_TOKEN: '${secret:github.GITHUB_TOKEN}' }),
        // Another entry naming the same item by hand: not its own old name, left as it is.
        mine: echoEntry({ TOKEN: '${secret:github.GITHUB_TOKEN}' }),
        // The collision the old names made: both were given hub.header.Authorization.
        'hub.header': echoEntry({ Authorization: '${secret:hub.header.Authorization}' }),
        hub: { url: remote.url, headers: { Authorization: '${secret:hub.header.Authorization}' } },
      });
      let bridge = await bridgeOn(file);
      // Before the panel reads the config, the old names are used as they are.
      expect(await envOf(bridge, 'github', 'GITHUB_TOKEN')).toBe(own);

      const first = await panelRequest(bridge, 'GET', '/config');
      expect(first.status, first.body).toBe(200);
      const warnings = (JSON.parse(first.body) as { warnings?: string[] }).warnings ?? [];
      expect(warnings.join('\n')).toContain(
        '"hub.header" and "hub" each used the stored secret hub.header.Authorization as their own',
      );
      expect(first.body).not.toContain(own);
      expect(first.body).not.toContain(shared);
      const moved = servers(file);
      expect(moved.github.env).toEqual({ GITHUB_TOKEN: '${secret:github/env/GITHUB_TOKEN}' });
      expect(moved.mine.env).toEqual({ TOKEN: '${secret:github.GITHUB_TOKEN}' });
      expect(moved['hub.header'].env).toEqual({ Authorization: '${secret:hub.header/env/Authorization}' });
      expect(moved.hub.headers).toEqual({ Authorization: '${secret:hub/header/Authorization}' });
      expect(keyring.get('github/env/GITHUB_TOKEN')).toBe(own);
      expect(keyring.get('github.GITHUB_TOKEN')).toBe(own);
      expect(keyring.get('hub.header/env/Authorization')).toBe(shared);
      expect(keyring.get('hub/header/Authorization')).toBe(shared);
      // A second read finds nothing more to move.
      const again = await panelRequest(bridge, 'GET', '/config');
      expect((JSON.parse(again.body) as { warnings?: string[] }).warnings).toBeUndefined();

      // The stdio entry's own value entered again: only it changes.
      const edit = await panelRequest(bridge, 'PUT', '/config/servers/hub.header', {
        entry: { ...echoEntry({ Authorization: stdioToken }), kind: 'stdio', secrets: 'store' },
      });
      expect(edit.status, edit.body).toBe(200);

      remote.seen.length = 0;
      bridge = await restart(bridge, file);
      expect(await envOf(bridge, 'github', 'GITHUB_TOKEN')).toBe(own);
      expect(await envOf(bridge, 'mine', 'TOKEN')).toBe(own);
      expect(await envOf(bridge, 'hub.header', 'Authorization')).toBe(stdioToken);
      await waitFor(() => remote.seen.length > 0, 20_000, 'the remote asked');
      expect(new Set(remote.seen)).toEqual(new Set([shared]));
    } finally {
      await remote.close();
    }
  });
});
