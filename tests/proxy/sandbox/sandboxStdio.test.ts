// A stdio server in a bubblewrap sandbox, through the built CLI's stdio aggregation: the probe
// fixture reads a secret in HOME, writes outside its paths and connects to loopback; refused
// each time sandboxed (and the log says what was refused), done each time unsandboxed. Listed
// read and write paths, `network: "all"` and an allow-list through the filtering proxy work;
// with bubblewrap missing, a sandboxed entry never starts.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectProxy, tempDir, waitFor, type ProxyHandle } from '../../helpers/proxyCli.js';
import { descendantsOf } from '../../helpers/procTree.js';
import { waitNotRunning } from '../../helpers/processGone.js';
import {
  callText,
  helloServer,
  loopbackServer,
  probeEntry,
  SECRET,
  TINY,
  userFolders,
} from '../../helpers/sandboxKit.js';

const open: ProxyHandle[] = [];
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const p of open.splice(0)) await p.close();
});
afterAll(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function user() {
  const u = userFolders();
  cleanups.push(u.remove);
  return u;
}

async function start(u: ReturnType<typeof user>, entry: Record<string, unknown>, env: Record<string, string> = {}) {
  const file = join(u.root, 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { probe: entry } }));
  const p = await connectProxy(['--config-file', file], {}, { ...u.env, ...env });
  open.push(p);
  return p;
}

describe.skipIf(process.platform !== 'linux')('a stdio server in a bubblewrap sandbox', () => {
  it('is refused the secret in HOME, a write outside its paths and a loopback connection; unsandboxed it gets them', async () => {
    const u = user();
    const tcp = await loopbackServer();
    cleanups.push(tcp.close);
    const outsideFile = join(u.outside, 'planted.txt');
    const homeFile = join(u.home, 'planted.txt');

    const boxed = await start(u, probeEntry({ filesystem: { read: [u.project] } }));
    expect(await callText(boxed.client, 'probe__read', { path: u.secret })).toBe('error: ENOENT');
    expect(await callText(boxed.client, 'probe__write', { path: join(u.project, 'x.txt'), text: 'x' })).toBe(
      'error: EROFS',
    );
    await callText(boxed.client, 'probe__write', { path: outsideFile, text: 'x' });
    await callText(boxed.client, 'probe__write', { path: homeFile, text: 'x' });
    expect(await callText(boxed.client, 'probe__connect', { host: '127.0.0.1', port: tcp.port })).toBe(
      'error: ECONNREFUSED',
    );
    expect(existsSync(outsideFile)).toBe(false);
    expect(existsSync(homeFile)).toBe(false);
    expect(existsSync(join(u.project, 'x.txt'))).toBe(false);
    expect(tcp.connections()).toBe(0);
    const log = boxed.stderr.join('\n');
    expect(log).toContain(`sandbox hid ${u.secret} (ENOENT)`);
    expect(log).toContain(`sandbox refused writing ${join(u.project, 'x.txt')} (EROFS)`);
    expect(log).toContain(`sandbox refused a connection to 127.0.0.1:${tcp.port} (ECONNREFUSED)`);
    await boxed.close();
    open.length = 0;

    const free = await start(u, probeEntry());
    expect(await callText(free.client, 'probe__read', { path: u.secret })).toBe(`ok: ${SECRET}`);
    expect(await callText(free.client, 'probe__write', { path: outsideFile, text: 'x' })).toBe('ok: written');
    expect(await callText(free.client, 'probe__connect', { host: '127.0.0.1', port: tcp.port })).toBe('ok: connected');
    expect(existsSync(outsideFile)).toBe(true);
    await waitFor(() => tcp.connections() === 1, 5000, 'the loopback server to see the connection');
  }, 60_000);

  it('reads its read paths, writes its write paths, keeps a private HOME across restarts', async () => {
    const u = user();
    const docs = join(u.root, 'docs');
    mkdirSync(docs);
    writeFileSync(join(docs, 'a.md'), 'doc a');
    const link = join(u.home, 'project-link');
    symlinkSync(u.project, link);
    const sandbox = { filesystem: { read: [docs], write: ['~/project-link'] } };
    const p = await start(u, probeEntry(sandbox));
    expect(await callText(p.client, 'probe__read', { path: join(docs, 'a.md') })).toBe('ok: doc a');
    expect(await callText(p.client, 'probe__read', { path: join(link, 'notes.txt') })).toBe('ok: project notes');
    expect(await callText(p.client, 'probe__write', { path: join(link, 'out.txt'), text: 'from the server' })).toBe(
      'ok: written',
    );
    expect(readFileSync(join(u.project, 'out.txt'), 'utf8')).toBe('from the server');
    expect(await callText(p.client, 'probe__home', {})).toBe(`ok: ${u.home}`);
    expect(await callText(p.client, 'probe__write', { path: join(u.home, 'state.json'), text: 'kept' })).toBe(
      'ok: written',
    );
    await p.close();
    open.length = 0;
    const again = await start(u, probeEntry(sandbox));
    expect(await callText(again.client, 'probe__read', { path: join(u.home, 'state.json') })).toBe('ok: kept');
    expect(existsSync(join(u.home, 'state.json'))).toBe(false);
    expect(
      readFileSync(
        join(u.env.XDG_CONFIG_HOME, 'qiming-mcp-runtime', 'mcp', 'sandbox', 'probe', 'home', 'state.json'),
        'utf8',
      ),
    ).toBe('kept');
  }, 60_000);

  it('reaches the network with "all", and only allowed hosts through the proxy with an allow-list', async () => {
    const u = user();
    const tcp = await loopbackServer();
    const hello = await helloServer();
    const other = await helloServer();
    cleanups.push(tcp.close, hello.close, other.close);
    const all = await start(u, probeEntry({ network: 'all' }));
    expect(await callText(all.client, 'probe__connect', { host: '127.0.0.1', port: tcp.port })).toBe('ok: connected');
    await all.close();
    open.length = 0;

    const listed = await start(u, probeEntry({ network: { allow: [`127.0.0.1:${hello.port}`] } }));
    expect(await callText(listed.client, 'probe__fetch', { url: `http://127.0.0.1:${hello.port}/` })).toBe('ok: hello');
    expect(await callText(listed.client, 'probe__fetch', { url: `http://127.0.0.1:${other.port}/` })).toBe(
      'error: HTTP_403',
    );
    expect(await callText(listed.client, 'probe__connect', { host: '127.0.0.1', port: tcp.port })).toMatch(/^error: /);
    expect(listed.stderr.join('\n')).toContain(
      `sandbox refused a connection to 127.0.0.1:${other.port}: not in sandbox.network.allow`,
    );
    // bwrap, its init, socat and the server: none outlives the proxy.
    const tree = descendantsOf(listed.transport.pid!);
    expect(tree.length).toBeGreaterThanOrEqual(3);
    await listed.close();
    open.length = 0;
    for (const pid of tree) expect(await waitNotRunning(pid, 5000), `pid ${pid} left`).toBe(true);
  }, 60_000);

  it("runs `npx -y <package>` from npx's cache, with no network to ask the registry", async () => {
    const u = user();
    const npx = join(u.home, '.npm', '_npx', '0123456789abcdef');
    const pkg = join(npx, 'node_modules', 'tiny-mcp');
    mkdirSync(join(npx, 'node_modules', '.bin'), { recursive: true });
    mkdirSync(pkg);
    writeFileSync(join(npx, 'package.json'), JSON.stringify({ _npx: { packages: ['tiny-mcp'] } }));
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'tiny-mcp', bin: { 'tiny-mcp': 'server.mjs' } }));
    copyFileSync(TINY, join(pkg, 'server.mjs'));
    chmodSync(join(pkg, 'server.mjs'), 0o755);
    symlinkSync('../tiny-mcp/server.mjs', join(npx, 'node_modules', '.bin', 'tiny-mcp'));
    const p = await start(u, { command: 'npx', args: ['-y', 'tiny-mcp'], sandbox: true });
    expect(await callText(p.client, 'probe__home', {})).toBe(`ok: ${u.home}`);
    expect(p.stderr.join('\n')).toContain(`sandbox: runs npx's cached tiny-mcp directly (${npx})`);
  }, 60_000);

  it('never starts a sandboxed server when bubblewrap is missing, and says why', async () => {
    const u = user();
    const bin = tempDir('no-bwrap-');
    cleanups.push(bin.remove);
    symlinkSync(process.execPath, join(bin.path, 'node'));
    const marker = join(u.root, 'started');
    const entry = { ...probeEntry(true), env: { PROBE_STARTED: marker } };
    const p = await start(u, entry, { PATH: bin.path });
    const tools = await p.client.listTools();
    expect(tools.tools.filter((t) => t.name.startsWith('probe__'))).toEqual([]);
    expect(p.stderr.join('\n')).toContain(
      "cannot start server 'probe' in its sandbox: bubblewrap (bwrap) is not installed; install bubblewrap",
    );
    expect(existsSync(marker)).toBe(false);
  }, 60_000);
});
