// A panel write racing an editor's save, on real files: the editor is a real process that
// saves the config in place (truncate and write, the file keeps its inode: VS Code's way) at
// the last moment a write can be raced, after every check and just before the rename
// (configFile.ts `WriteHooks.afterCheck`). The save is not undone: it is put back, and the
// panel's change is made again on it. An editor that saves by rename after the change was
// read is seen by the check and nothing is renamed.
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigStore } from '../../../src/proxy/config/configStore.js';
import {
  ConfigChangedMeanwhile,
  readConfigDocument,
  writeConfigDocument,
} from '../../../src/proxy/config/configFile.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const TEXT = `${JSON.stringify({ mcpServers: { a: { command: 'node', args: ['a.js'] }, b: { command: 'node', args: ['b.js'] } } }, null, 2)}\n`;
const SAVED = TEXT.replace('"b.js"', '"b-saved-by-the-editor.js"');

function configFile(): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'config-race-'));
  dirs.push(dir);
  const path = join(dir, 'mcp.json');
  writeFileSync(path, TEXT, { mode: 0o600 });
  return { dir, path };
}

/** Another program saves `text` over `path` in place, as an editor does: same file, truncated and written. */
function editorSavesInPlace(path: string, text: string): void {
  const inode = statSync(path).ino;
  const r = spawnSync(
    process.execPath,
    ['-e', 'require("node:fs").writeFileSync(process.argv[1], process.argv[2])', path, text],
    { encoding: 'utf8', timeout: 30_000 },
  );
  expect(r.status, r.stderr).toBe(0);
  expect(statSync(path).ino, 'the editor saved in place').toBe(inode);
}

/** Another program saves `text` by writing a new file and renaming it over `path`. */
function editorSavesByRename(path: string, text: string): void {
  const r = spawnSync(
    process.execPath,
    [
      '-e',
      'const fs = require("node:fs"); fs.writeFileSync(process.argv[1] + ".swp", process.argv[2]); fs.renameSync(process.argv[1] + ".swp", process.argv[1])',
      path,
      text,
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  expect(r.status, r.stderr).toBe(0);
}

describe("a panel write racing an editor's save (real files, a real editor process)", () => {
  it('a save written in place between the last check and the rename is kept, and the change is made again on it', () => {
    const { dir, path } = configFile();
    let checks = 0;
    const store = new ConfigStore(
      path,
      {},
      {
        afterCheck: () => {
          if (++checks === 1) editorSavesInPlace(path, SAVED);
        },
      },
    );
    const version = store.view().servers[0]!.version;
    const r = store.apply({ op: 'enable', id: 'a', enabled: false, version });
    expect(r.ok, r.error).toBe(true);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      mcpServers: {
        a: { command: 'node', args: ['a.js'], disabled: true },
        b: { command: 'node', args: ['b-saved-by-the-editor.js'] },
      },
    });
    expect(readFileSync(path, 'utf8')).toBe(
      SAVED.replace(
        '"args": [\n        "a.js"\n      ]',
        '"args": [\n        "a.js"\n      ],\n      "disabled": true',
      ),
    );
    // The first write was raced; the change was made again on the editor's text.
    expect(checks).toBe(2);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('the write itself says so and leaves the editor’s bytes in the file, exactly', () => {
    const { dir, path } = configFile();
    const before = readConfigDocument(path);
    expect(() =>
      writeConfigDocument(before, Buffer.from('{"mcpServers": {}}\n'), {
        afterCheck: () => editorSavesInPlace(path, SAVED),
      }),
    ).toThrow(ConfigChangedMeanwhile);
    expect(readFileSync(path, 'utf8')).toBe(SAVED);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a save by rename after the change was read renames nothing', () => {
    const { path } = configFile();
    const before = readConfigDocument(path);
    editorSavesByRename(path, SAVED);
    expect(() => writeConfigDocument(before, Buffer.from('{"mcpServers": {}}\n'))).toThrow(ConfigChangedMeanwhile);
    expect(readFileSync(path, 'utf8')).toBe(SAVED);
  });
});
