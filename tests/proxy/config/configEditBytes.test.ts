// A panel change rewrites only the entry it touches: on a real file holding every byte pattern
// a whole-file rewrite would lose (BOM, CRLF, comments, trailing commas, big integers, `1.0`,
// arrays laid out by hand, duplicate keys, a `__proto__` key, bytes that are not UTF-8), each
// change (add, edit, rename, enable, tool switch, remove, import) leaves every byte outside
// the edited entry as it was, byte for byte, and the kept patterns inside the entry too.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigStore, type ConfigChange } from '../../../src/proxy/config/configStore.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const NOT_UTF8 = Buffer.from([0xff, 0xfe, 0xc3]);
const lines = (...l: (string | Buffer)[]) =>
  Buffer.concat([
    Buffer.from([0xef, 0xbb, 0xbf]),
    ...l.map((x) => Buffer.concat([Buffer.from(x), Buffer.from('\r\n')])),
  ]);

/** The file, as JSONC (a comment, trailing commas) or as strict JSON. */
const file = (jsonc: boolean) => {
  const c = jsonc ? ',' : '';
  return lines(
    '{',
    ...(jsonc ? ['  // the user\u2019s notes, kept'] : []),
    '  "someOtherApp": { "big": 12345678901234567890, "max": 9007199254740993, "f": 1.0, "list": [1,2,  3] },',
    '  "dup": 1,',
    '  "dup": 2,',
    '  "mcpServers": {',
    '    "before": { "command": "node", "args": ["a.js",   "b.js"], "x": 1.0 },',
    '    "target": {',
    '      "command": "node",',
    '      "args": [ "t.js",',
    '                "--flag" ],',
    '      "x_big": 12345678901234567890,',
    '      "x_float": 1.0,',
    `      "__proto__": { "kept": true }${c}`,
    '    },',
    Buffer.concat([Buffer.from('    "bytes": { "command": "node", "x_note": "'), NOT_UTF8, Buffer.from('" },')]),
    `    "after": { "command": "node", "args": [ "c.js" ], "x": 9007199254740993 }${c}${jsonc ? ' /* trailing */' : ''}`,
    `  }${c}`,
    '}',
  );
};
const FILE = file(true);
const JSON_FILE = file(false);

/** Where the `target` entry's lines are in `f`, and where an appended entry goes. */
const targetOf = (f: Buffer) => ({ start: f.indexOf('    "target"'), end: f.indexOf('    "bytes"') });
const appendOf = (f: Buffer) => {
  const last = f.indexOf('"x": 9007199254740993 }') + '"x": 9007199254740993 }'.length;
  return {
    start: f.includes('/* trailing */') ? f.indexOf('/* trailing */') + '/* trailing */'.length : last,
    end: f.lastIndexOf('\r\n  }'),
  };
};

function setup(text = FILE): { path: string; store: ConfigStore } {
  const dir = mkdtempSync(join(tmpdir(), 'config-bytes-'));
  dirs.push(dir);
  const path = join(dir, 'mcp.json');
  writeFileSync(path, text);
  return { path, store: new ConfigStore(path, {}) };
}

/** Whether `after` is `before` with at most the bytes in `range` replaced: the bytes before and after it are the same. */
function changedOnlyWithin(before: Buffer, after: Buffer, range: { start: number; end: number }): boolean {
  const head = before.subarray(0, range.start);
  const tail = before.subarray(range.end);
  return (
    after.length >= head.length + tail.length &&
    after.subarray(0, head.length).equals(head) &&
    after.subarray(after.length - tail.length).equals(tail)
  );
}

const target = { kind: 'stdio' as const, command: 'node', args: ['t.js', '--flag'] };
const CHANGES: [string, ConfigChange, (f: Buffer) => { start: number; end: number }][] = [
  ['edit (command)', { op: 'update', id: 'target', entry: { ...target, command: process.execPath } }, targetOf],
  [
    'edit (arguments)',
    { op: 'update', id: 'target', entry: { ...target, args: ['t.js', '--flag', '--more'] } },
    targetOf,
  ],
  ['rename', { op: 'update', id: 'target', newId: 'renamed', entry: target }, targetOf],
  ['disable', { op: 'enable', id: 'target', enabled: false }, targetOf],
  ['tool off', { op: 'tool', id: 'target', tool: 'echo', enabled: false }, targetOf],
  ['remove', { op: 'remove', id: 'target' }, targetOf],
  ['add', { op: 'add', id: 'added', entry: { kind: 'stdio', command: 'npx', args: ['-y', 'pkg'] } }, appendOf],
  ['import', { op: 'import', text: '{"mcpServers": {"pasted": {"command": "uvx", "args": ["srv"]}}}' }, appendOf],
];

describe.each([
  ['JSONC', FILE],
  ['strict JSON', JSON_FILE],
])('a panel change keeps every byte outside the entry it edits (%s)', (_kind, text) => {
  for (const [name, change, rangeOf] of CHANGES) {
    it(name, () => {
      const { path, store } = setup(text);
      const r = store.apply(change);
      expect(r.ok, r.error).toBe(true);
      const after = readFileSync(path);
      expect(changedOnlyWithin(text, after, rangeOf(text))).toBe(true);
      // The new bytes use the file's line ends: no bare LF.
      expect(after.toString('latin1').replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
      for (const kept of [
        '12345678901234567890',
        '9007199254740993',
        '"f": 1.0',
        '[1,2,  3]',
        '"dup": 1,',
        '"dup": 2,',
        '["a.js",   "b.js"]',
      ]) {
        expect(after.includes(kept), kept).toBe(true);
      }
      if (text === FILE) expect(after.includes('// the user')).toBe(true);
      expect(after.includes(NOT_UTF8)).toBe(true);
      expect(after.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      if (change.op !== 'remove') {
        // Inside the edited entry, what the change does not own is kept too.
        for (const kept of ['"x_big": 12345678901234567890', '"x_float": 1.0', '"__proto__": { "kept": true }'])
          expect(after.includes(kept), kept).toBe(true);
        if (change.op !== 'update' || change.newId)
          expect(after.includes('"args": [ "t.js",\r\n                "--flag" ]')).toBe(true);
      }
    });
  }
});

describe('a panel change on that file', () => {
  it('what the runtime reads from the result is the change and nothing else', () => {
    const { store } = setup();
    const r = store.apply({ op: 'update', id: 'target', newId: 'renamed', entry: { ...target, args: ['t.js'] } });
    expect(r.config?.servers.map((s) => [s.id, s.args])).toEqual([
      ['before', ['a.js', 'b.js']],
      ['renamed', ['t.js']],
      ['bytes', []],
      ['after', ['c.js']],
    ]);
    expect(r.config?.warnings).toEqual([
      expect.stringContaining('duplicate key "dup" in the top level (line 5): the last one counts'),
    ]);
  });

  it('refuses, with a clear error and nothing written, a change that would rewrite bytes that are not UTF-8', () => {
    const { path, store } = setup();
    const bytes = store.view().servers.find((s) => s.id === 'bytes')!;
    // Its own arguments are not the problem: rewriting its note would be, and removing it deletes the bytes whole.
    expect(
      store.apply({
        op: 'update',
        id: 'bytes',
        entry: { kind: 'stdio', command: 'node', args: ['x.js'] },
        version: bytes.version,
      }).ok,
    ).toBe(true);
    writeFileSync(path, FILE);
    const text = FILE.toString('latin1').replace('"x_note": "', '"args": ["');
    const withArgs = Buffer.from(text.replace('\u00ff\u00fe\u00c3" },', '\u00ff\u00fe\u00c3"] },'), 'latin1');
    writeFileSync(path, withArgs);
    const r = store.apply({
      op: 'update',
      id: 'bytes',
      entry: { kind: 'stdio', command: 'node', args: ['\ufffd\ufffd\ufffd', 'more'] },
    });
    expect(r).toMatchObject({
      ok: false,
      status: 409,
      error: 'the change would rewrite bytes on line 16 that are not valid UTF-8: fix them in an editor first',
    });
    expect(readFileSync(path).equals(withArgs)).toBe(true);
    expect(store.apply({ op: 'remove', id: 'bytes' }).ok).toBe(true);
    expect(readFileSync(path).includes(NOT_UTF8)).toBe(false);
  });
});
