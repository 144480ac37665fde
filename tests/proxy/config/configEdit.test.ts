// The panel's config edits on real files: what is written (order, unknown fields, mode,
// `.bak`, atomic rename), what is refused (the CLI's own messages, nothing written), secrets
// that never come back to the page yet survive a save that keeps their mask, JSONC files,
// entry versions against an editor saving meanwhile, duplicate keys, and the depth limit.
import { afterEach, describe, expect, it } from 'vitest';
import {
  chmodSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigStore } from '../../../src/proxy/config/configStore.js';
import {
  ConfigChangedMeanwhile,
  readConfigDocument,
  writeConfigDocument,
} from '../../../src/proxy/config/configFile.js';
import { writeAtomic } from '../../../src/proxy/common/writeAtomic.js';
import { loadConfig } from '../../../src/proxy/config/config.js';
import { SECRET_MASK, type EntryView } from '../../../src/shared/configContract.js';

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

const read = (p: string) =>
  JSON.parse(readFileSync(p, 'utf8')) as { mcpServers: Record<string, Record<string, unknown>> } & Record<
    string,
    unknown
  >;

const START = {
  toolNaming: 'original',
  someOtherApp: { keep: [1, 2] },
  mcpServers: {
    first: {
      command: 'node',
      args: ['a.js', '--api-key', 'sk-live-123456'],
      env: { TOKEN: 'ghp_abcdefghijklmnop', LEVEL: '${LOG_LEVEL}' },
      x_vendor: true,
    },
    web: {
      url: 'https://user:pw@example.com/mcp?key=k123',
      headers: { Authorization: 'Bearer tok-1234567890' },
      timeoutMs: 5000,
    },
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
    for (const secret of ['sk-live-123456', 'ghp_abcdefghijklmnop', 'tok-1234567890', 'k123', ':pw@'])
      expect(text).not.toContain(secret);
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
    expect(after.mcpServers.memory).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      env: { A: '1' },
    });
    expect(after.someOtherApp).toEqual({ keep: [1, 2] });
    expect(after.mcpServers.first.x_vendor).toBe(true);
    expect(readFileSync(path, 'utf8')).toMatch(/^\{\n {4}"toolNaming"/);
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(readFileSync(`${path}.bak`, 'utf8')).toBe(before);
    expect(statSync(`${path}.bak`).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir).sort()).toEqual(['mcp.json', 'mcp.json.bak']); // no temp file left
    // The CLI reads the result as it reads any config.
    expect(loadConfig(path, { env: { LOG_LEVEL: 'x' } }).servers.map((s) => s.id)).toEqual([
      'first',
      'web',
      'last',
      'memory',
    ]);
  });

  it('a save that keeps the masks keeps every secret; a changed value replaces it; other fields stay', () => {
    const { path, store } = configFile(START);
    const first = store.view().servers[0]!;
    const r = store.apply({
      op: 'update',
      id: 'first',
      entry: { kind: 'stdio', command: 'node', args: first.args, env: { ...first.env, NEW: 'v' } },
    });
    expect(r.ok).toBe(true);
    expect(JSON.stringify(r)).not.toContain('ghp_');
    const saved = read(path).mcpServers.first;
    expect(saved).toEqual({ ...START.mcpServers.first, env: { ...START.mcpServers.first.env, NEW: 'v' } });
    const web = store.view().servers[1]!;
    store.apply({
      op: 'update',
      id: 'web',
      entry: {
        kind: 'remote',
        url: web.url,
        headers: { Authorization: 'Bearer new-one', 'X-A': 'b' },
        transport: 'sse',
      },
    });
    const w = read(path).mcpServers.web;
    expect(w).toEqual({
      url: START.mcpServers.web.url,
      headers: { Authorization: 'Bearer new-one', 'X-A': 'b' },
      timeoutMs: 5000,
      type: 'sse',
    });
  });

  it('renames in place and refuses a taken name, an invalid name and an unknown server, writing nothing', () => {
    const { path, store } = configFile(START);
    expect(
      store.apply({
        op: 'update',
        id: 'last',
        newId: 'renamed',
        entry: { kind: 'stdio', command: 'python3', args: ['-m', 'srv'] },
      }).ok,
    ).toBe(true);
    expect(Object.keys(read(path).mcpServers)).toEqual(['first', 'web', 'renamed']);
    expect(read(path).mcpServers.renamed.disabled).toBe(true);
    const text = readFileSync(path, 'utf8');
    expect(store.apply({ op: 'add', id: 'web', entry: { kind: 'stdio', command: 'x' } })).toMatchObject({
      ok: false,
      status: 409,
      error: 'a server named "web" already exists',
    });
    expect(store.apply({ op: 'add', id: 'bad id!', entry: { kind: 'stdio', command: 'x' } })).toMatchObject({
      ok: false,
      status: 400,
    });
    expect(store.apply({ op: 'remove', id: 'nope' })).toMatchObject({ ok: false, status: 404 });
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('a broken edit is refused with the CLI validation message and changes nothing (no .bak either)', () => {
    const { path, store } = configFile(START);
    const text = readFileSync(path, 'utf8');
    const r = store.apply({ op: 'add', id: 'broken', entry: { kind: 'remote', url: 'not a url' } });
    expect(r).toMatchObject({ ok: false, status: 400, issues: ['server "broken": url is not a valid absolute URL'] });
    const r2 = store.apply({
      op: 'add',
      id: 'noenv',
      entry: { kind: 'stdio', command: 'x', env: { K: '${NOT_SET_ANYWHERE}' } },
    });
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

  it('reads and edits a JSONC file (comments, trailing commas) and refuses one that is not JSON at all, naming where', () => {
    const { path, store } = configFile(undefined, '{ // mine\n "mcpServers": {}, }');
    expect(store.apply({ op: 'add', id: 'a', entry: { kind: 'stdio', command: 'x' } }).ok).toBe(true);
    expect(readFileSync(path, 'utf8')).toMatch(
      /^\{ \/\/ mine\n "mcpServers": \{\n {2}"a": \{\n {3}"command": "x"\n {2}\}\n \}, \}$/,
    );
    const broken = configFile(undefined, '{ "mcpServers": { "a": { "command": "x" } }');
    const r = broken.store.apply({ op: 'add', id: 'b', entry: { kind: 'stdio', command: 'x' } });
    expect(r).toMatchObject({
      ok: false,
      error: `${broken.path} is not valid JSON: close brace expected at line 1, column 44; fix it by hand first (the panel only writes valid files)`,
    });
    expect(readFileSync(broken.path, 'utf8')).toBe('{ "mcpServers": { "a": { "command": "x" } }');
  });

  it('edits the "servers" map of a VS Code mcp.json that has no "mcpServers"', () => {
    const text = '{\n  "inputs": [],\n  "servers": {\n    "a": { "type": "stdio", "command": "x" }\n  }\n}\n';
    const { path, store } = configFile(undefined, text);
    expect(store.view().servers.map((s) => s.id)).toEqual(['a']);
    expect(store.apply({ op: 'enable', id: 'a', enabled: false }).ok).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(text.replace('"command": "x" }', '"command": "x", "disabled": true }'));
  });
});

describe('ConfigStore: versions (an editor saving while the panel is open)', () => {
  const TEXT = `${JSON.stringify({ mcpServers: { a: { command: 'node', args: ['a.js'] }, b: { command: 'node', args: ['b.js'] } } }, null, 2)}\n`;

  it('refuses a change made from an entry that changed in the file since (409, code "conflict"), keeping what the editor saved', () => {
    const { path, store } = configFile(undefined, TEXT);
    const version = store.view().servers[0]!.version;
    expect(version).toMatch(/^[\w-]{22}$/);
    const edited = TEXT.replace('"a.js"', '"edited.js"');
    writeFileSync(path, edited);
    const draft = { kind: 'stdio' as const, command: 'node', args: ['a.js', '--stale-form'] };
    for (const change of [
      { op: 'update' as const, id: 'a', entry: draft, version },
      { op: 'enable' as const, id: 'a', enabled: false, version },
      { op: 'tool' as const, id: 'a', tool: 't', enabled: false, version },
      { op: 'remove' as const, id: 'a', version },
    ]) {
      expect(store.apply(change)).toMatchObject({
        ok: false,
        status: 409,
        code: 'conflict',
        error: expect.stringContaining('"a" was changed in'),
      });
    }
    expect(readFileSync(path, 'utf8')).toBe(edited);
    // Read again: the new version is accepted.
    const now = store.view().servers[0]!;
    expect(now.args).toEqual(['edited.js']);
    expect(
      store.apply({
        op: 'update',
        id: 'a',
        entry: { ...draft, args: ['edited.js', '--fresh-form'] },
        version: now.version,
      }).ok,
    ).toBe(true);
    expect(read(path).mcpServers.a!.args).toEqual(['edited.js', '--fresh-form']);
  });

  it('a change to one entry keeps what an editor saved meanwhile in another (the file is edited in place)', () => {
    const { path, store } = configFile(undefined, TEXT);
    const version = store.view().servers[0]!.version;
    writeFileSync(path, TEXT.replace('"b.js"', '"b-by-editor.js"'));
    expect(store.apply({ op: 'enable', id: 'a', enabled: false, version }).ok).toBe(true);
    expect(read(path).mcpServers).toEqual({
      a: { command: 'node', args: ['a.js'], disabled: true },
      b: { command: 'node', args: ['b-by-editor.js'] },
    });
  });

  it('a change made from an entry that is gone is a conflict too; an unchanged entry keeps its version', () => {
    const { path, store } = configFile(undefined, TEXT);
    const [a, b] = store.view().servers;
    writeFileSync(path, TEXT.replace('"b.js"', '"b2.js"'));
    expect(store.view().servers[0]!.version).toBe(a!.version);
    expect(store.view().servers[1]!.version).not.toBe(b!.version);
    writeFileSync(path, `${JSON.stringify({ mcpServers: { b: { command: 'node' } } })}\n`);
    expect(store.apply({ op: 'remove', id: 'a', version: a!.version })).toMatchObject({
      status: 409,
      code: 'conflict',
    });
  });

  it('writes nothing when the file changed between the read and the write (checked again just before the rename)', () => {
    const { dir, path } = configFile(undefined, TEXT);
    const before = readConfigDocument(path);
    writeFileSync(path, TEXT.replace('"b.js"', '"saved-by-editor.js"'));
    expect(() => writeConfigDocument(before, Buffer.from('{"mcpServers": {}}\n'))).toThrow(ConfigChangedMeanwhile);
    expect(readFileSync(path, 'utf8')).toContain('saved-by-editor.js');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('an atomic write whose last check throws renames nothing and leaves no temp file', () => {
    const { dir, path } = configFile(undefined, TEXT);
    expect(() =>
      writeAtomic(path, 'new', 0o600, () => {
        throw new Error('changed meanwhile');
      }),
    ).toThrow('changed meanwhile');
    expect(readFileSync(path, 'utf8')).toBe(TEXT);
    expect(readdirSync(dir)).toEqual(['mcp.json']);
  });
});

describe('ConfigStore: duplicate keys and depth', () => {
  const DUP =
    '{\n  "toolNaming": "prefixed",\n  "toolNaming": "original",\n  "mcpServers": {\n    "twice": { "command": "a" },\n    "twice": { "command": "b" },\n    "once": { "command": "c" }\n  }\n}\n';

  it('warns about duplicate keys (the last one counts), refuses to edit a duplicated entry, and keeps both elsewhere', () => {
    const { path, store } = configFile(undefined, DUP);
    const view = store.view();
    expect(view.servers.map((s) => [s.id, s.command])).toEqual([
      ['twice', 'b'],
      ['once', 'c'],
    ]);
    expect(view.warnings).toEqual([
      `${path}: duplicate key "toolNaming" in the top level (line 3): the last one counts`,
      `${path}: duplicate key "twice" in mcpServers (line 6): the last one counts`,
    ]);
    const r = store.apply({ op: 'update', id: 'twice', entry: { kind: 'stdio', command: 'z' } });
    expect(r).toMatchObject({
      ok: false,
      status: 409,
      error: 'mcpServers.twice appears more than once in the file: remove one of them in an editor first',
    });
    expect(readFileSync(path, 'utf8')).toBe(DUP);
    const ok = store.apply({ op: 'enable', id: 'once', enabled: false });
    expect(ok.config?.warnings).toHaveLength(2);
    expect(readFileSync(path, 'utf8')).toBe(DUP.replace('"command": "c" }', '"command": "c", "disabled": true }'));
  });

  it('refuses a file nested deeper than the limit with a message naming it, for reads and changes, however deep', () => {
    for (const depth of [101, 5_000, 100_000]) {
      const text = `{"mcpServers": {"s": {"command": "x", "x_deep": ${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
      const { path, store } = configFile(undefined, text);
      const message = `${path} nests arrays and objects more than 100 levels deep (the limit is 100); fix it by hand first (the panel only writes valid files)`;
      expect(() => store.view()).toThrow(message);
      expect(store.apply({ op: 'add', id: 'a', entry: { kind: 'stdio', command: 'x' } })).toEqual({
        ok: false,
        status: 500,
        error: message,
      });
      expect(store.apply({ op: 'import', text: '{"b": {"command": "x"}}' })).toEqual({
        ok: false,
        status: 500,
        error: message,
      });
    }
  });

  it('the CLI refuses such a config too, with the same limit, instead of overflowing later', () => {
    const deep = `{"mcpServers": {"s": {"command": "x", "x_deep": ${'['.repeat(5_000)}${']'.repeat(5_000)}}}}`;
    expect(() => loadConfig(deep)).toThrow(
      'the config nests arrays and objects more than 100 levels deep (the limit is 100)',
    );
  });
});
