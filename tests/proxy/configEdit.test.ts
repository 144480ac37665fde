// The panel's config edits on real files: what is written (order, unknown fields, mode,
// `.bak`, atomic rename), what is refused (the CLI's own messages, nothing written), and
// secrets that never come back to the page yet survive a save that keeps their mask.
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigStore } from '../../src/proxy/config/configStore.js';
import { loadConfig } from '../../src/proxy/config/config.js';
import { SECRET_MASK, type EntryView } from '../../src/shared/configContract.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function configFile(doc: unknown, text?: string): { dir: string; path: string; store: ConfigStore } {
  const dir = mkdtempSync(join(tmpdir(), 'config-edit-'));
  dirs.push(dir);
  const path = join(dir, 'mcp.json');
  writeFileSync(path, text ?? `${JSON.stringify(doc, null, 4)}\n`);
  return { dir, path, store: new ConfigStore(path, { HOME: '/home/me', LOG_LEVEL: 'info' }) };
}

const read = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as { mcpServers: Record<string, Record<string, unknown>> } & Record<string, unknown>;

const START = {
  toolNaming: 'original',
  someOtherApp: { keep: [1, 2] },
  mcpServers: {
    first: { command: 'node', args: ['a.js', '--api-key', 'sk-live-123456'], env: { TOKEN: 'ghp_abcdefghijklmnop', LEVEL: '${LOG_LEVEL}' }, x_vendor: true },
    web: { url: 'https://user:pw@example.com/mcp?key=k123', headers: { Authorization: 'Bearer tok-1234567890' }, timeoutMs: 5000 },
    last: { command: 'python3', args: ['-m', 'srv'], disabled: true },
  },
};

describe('ConfigStore: reading for the page', () => {
  it('masks env values, header values, credential args and url secrets; keeps names, ${VAR} references and order', () => {
    const { store } = configFile(START);
    const view = store.view();
    expect(view.servers.map((s) => s.id)).toEqual(['first', 'web', 'last']);
    const [first, web, last] = view.servers as [EntryView, EntryView, EntryView];
    expect(first.env).toEqual({ TOKEN: SECRET_MASK, LEVEL: '${LOG_LEVEL}' });
    expect(first.args).toEqual(['a.js', '--api-key', '***']);
    expect(web.headers).toEqual({ Authorization: SECRET_MASK });
    expect(web.url).not.toContain('pw');
    expect(web.url).not.toContain('k123');
    expect(last.disabled).toBe(true);
    const text = JSON.stringify(view);
    for (const secret of ['sk-live-123456', 'ghp_abcdefghijklmnop', 'tok-1234567890', 'k123', ':pw@']) expect(text).not.toContain(secret);
  });
});

describe('ConfigStore: changes', () => {
  it('adds a stdio server at the end, in the file indent, keeping unknown fields, the mode, and a .bak of the old text', () => {
    const { dir, path, store } = configFile(START);
    chmodSync(path, 0o640);
    const before = readFileSync(path, 'utf8');
    const r = store.apply({
      op: 'add',
      id: 'memory',
      entry: { kind: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { A: '1' } },
    });
    expect(r).toMatchObject({ ok: true });
    const after = read(path);
    expect(Object.keys(after.mcpServers)).toEqual(['first', 'web', 'last', 'memory']);
    expect(after.mcpServers.memory).toEqual({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { A: '1' } });
    expect(after.someOtherApp).toEqual({ keep: [1, 2] });
    expect(after.mcpServers.first.x_vendor).toBe(true);
    expect(readFileSync(path, 'utf8')).toMatch(/^\{\n {4}"toolNaming"/);
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(readFileSync(`${path}.bak`, 'utf8')).toBe(before);
    expect(statSync(`${path}.bak`).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir).sort()).toEqual(['mcp.json', 'mcp.json.bak']); // no temp file left
    // The CLI reads the result as it reads any config.
    expect(loadConfig(path, { env: { LOG_LEVEL: 'x' } }).servers.map((s) => s.id)).toEqual(['first', 'web', 'last', 'memory']);
  });

  it('a save that keeps the masks keeps every secret; a changed value replaces it; other fields stay', () => {
    const { path, store } = configFile(START);
    const first = store.view().servers[0]!;
    const r = store.apply({ op: 'update', id: 'first', entry: { kind: 'stdio', command: 'node', args: first.args, env: { ...first.env, NEW: 'v' } } });
    expect(r.ok).toBe(true);
    expect(JSON.stringify(r)).not.toContain('ghp_');
    const saved = read(path).mcpServers.first;
    expect(saved).toEqual({ ...START.mcpServers.first, env: { ...START.mcpServers.first.env, NEW: 'v' } });
    const web = store.view().servers[1]!;
    store.apply({
      op: 'update',
      id: 'web',
      entry: { kind: 'remote', url: web.url, headers: { Authorization: 'Bearer new-one', 'X-A': 'b' }, transport: 'sse' },
    });
    const w = read(path).mcpServers.web;
    expect(w).toEqual({ url: START.mcpServers.web.url, headers: { Authorization: 'Bearer new-one', 'X-A': 'b' }, timeoutMs: 5000, type: 'sse' });
  });

  it('renames in place and refuses a taken name, an invalid name and an unknown server, writing nothing', () => {
    const { path, store } = configFile(START);
    expect(store.apply({ op: 'update', id: 'last', newId: 'renamed', entry: { kind: 'stdio', command: 'python3', args: ['-m', 'srv'] } }).ok).toBe(true);
    expect(Object.keys(read(path).mcpServers)).toEqual(['first', 'web', 'renamed']);
    expect(read(path).mcpServers.renamed.disabled).toBe(true);
    const text = readFileSync(path, 'utf8');
    expect(store.apply({ op: 'add', id: 'web', entry: { kind: 'stdio', command: 'x' } })).toMatchObject({
      ok: false,
      status: 409,
      error: 'a server named "web" already exists',
    });
    expect(store.apply({ op: 'add', id: 'bad id!', entry: { kind: 'stdio', command: 'x' } })).toMatchObject({ ok: false, status: 400 });
    expect(store.apply({ op: 'remove', id: 'nope' })).toMatchObject({ ok: false, status: 404 });
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('a broken edit is refused with the CLI validation message and changes nothing (no .bak either)', () => {
    const { path, store } = configFile(START);
    const text = readFileSync(path, 'utf8');
    const r = store.apply({ op: 'add', id: 'broken', entry: { kind: 'remote', url: 'not a url' } });
    expect(r).toMatchObject({ ok: false, status: 400, issues: ['server "broken": url is not a valid absolute URL'] });
    const r2 = store.apply({ op: 'add', id: 'noenv', entry: { kind: 'stdio', command: 'x', env: { K: '${NOT_SET_ANYWHERE}' } } });
    expect(r2.issues?.[0]).toContain('references ${NOT_SET_ANYWHERE}, but that variable is not set');
    const r3 = store.apply({ op: 'add', id: 'ghost', entry: { kind: 'stdio', command: 'x', env: { K: SECRET_MASK } } });
    expect(r3).toMatchObject({ ok: false, issues: ['env "K" has no stored value to keep: type its value'] });
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(() => statSync(`${path}.bak`)).toThrow();
  });

  it('removes, disables and enables (the key removed again), and toggles single tools in tools.deny', () => {
    const { path, store } = configFile(START);
    expect(store.apply({ op: 'enable', id: 'first', enabled: false }).ok).toBe(true);
    expect(read(path).mcpServers.first.disabled).toBe(true);
    store.apply({ op: 'enable', id: 'first', enabled: true });
    expect('disabled' in read(path).mcpServers.first).toBe(false);
    store.apply({ op: 'tool', id: 'first', tool: 'echo', enabled: false });
    store.apply({ op: 'tool', id: 'first', tool: 'add', enabled: false });
    expect(read(path).mcpServers.first.tools).toEqual({ deny: ['echo', 'add'] });
    expect(store.view().servers[0]!.deniedTools).toEqual(['echo', 'add']);
    store.apply({ op: 'tool', id: 'first', tool: 'echo', enabled: true });
    store.apply({ op: 'tool', id: 'first', tool: 'add', enabled: true });
    expect('tools' in read(path).mcpServers.first).toBe(false);
    expect(store.apply({ op: 'remove', id: 'web' }).ok).toBe(true);
    expect(Object.keys(read(path).mcpServers)).toEqual(['first', 'last']);
  });

  it('says when a tool turned back on is still hidden by a wildcard', () => {
    const { store } = configFile({ mcpServers: { s: { command: 'x', tools: { deny: ['danger_*'] } } } });
    const r = store.apply({ op: 'tool', id: 's', tool: 'danger_rm', enabled: true });
    expect(r.ok).toBe(true);
    expect(r.error).toContain('still hidden');
  });

  it('writes through a symlinked config (the link stays a link, the .bak goes beside the real file)', () => {
    const { dir, path } = configFile(START);
    const link = join(dir, 'linked.json');
    symlinkSync(path, link);
    const store = new ConfigStore(link, { LOG_LEVEL: 'info' });
    expect(store.apply({ op: 'remove', id: 'last' }).ok).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(Object.keys(read(path).mcpServers)).toEqual(['first', 'web']);
    expect(readFileSync(`${path}.bak`, 'utf8')).toContain('"last"');
  });

  it('refuses a file that is not JSON (comments included: the parser reads JSON only) without touching it', () => {
    const { path, store } = configFile(undefined, '{ // mine\n "mcpServers": {} }');
    const r = store.apply({ op: 'add', id: 'a', entry: { kind: 'stdio', command: 'x' } });
    expect(r.ok).toBe(false);
    expect(r.error).toContain('is not valid JSON');
    expect(readFileSync(path, 'utf8')).toBe('{ // mine\n "mcpServers": {} }');
  });
});
