/**
 * The config file as a document to edit: its exact bytes and syntax tree (jsonText.ts, JSON
 * or JSONC), the servers map it holds, and the write back: a `.bak` of the previous bytes,
 * then the new bytes atomically.
 *
 * Edits are made in the text (jsonTextEdit.ts), so every byte outside a change is kept:
 * comments, key order, unknown fields, the BOM, line ends, numbers as written. The servers
 * are under `mcpServers`, or under `servers` in a VS Code `mcp.json` that has no
 * `mcpServers`. The write is a temp file in the same folder (same file system), fsync'ed,
 * given the old file's mode, then renamed over the file. An editor's save made meanwhile is
 * not undone ({@link ConfigChangedMeanwhile}: the change is then made again on the new text):
 * - before the rename, the file the change was made on is held open and checked: its bytes,
 *   and that the path still names it (a save by rename gives the path a new file); when
 *   either changed, nothing is renamed;
 * - after the rename, the file held is read again: a save written into it in place between
 *   the check and the rename (or while the rename ran) is in it, and is put back in place
 *   of the change's bytes, unless the path changed once more since.
 * What no check can see is a save by rename landing between the last check and the rename,
 * one system call apart: POSIX has no compare-and-rename (decision 0028). On Windows the file
 * is not held across the rename (a file open there may not be replaced), so the check before
 * it is the last. Synchronous on purpose: two edits in one process can never interleave.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync, realpathSync, rmSync, statSync } from 'node:fs';
import { writeAtomic } from '../common/writeAtomic.js';
import { ConfigError } from './config.js';
import { isPlainObject } from './configEntry.js';
import { JsonTextError, parseJsonText, type JsonText } from './jsonText.js';

/** The key the servers map lives under. */
export type ServersKey = 'mcpServers' | 'servers';

/** A parsed config file and what is needed to change it in place. */
export interface ConfigDocument {
  path: string;
  /** The file actually written: `path` with symlinks resolved (a dotfiles symlink stays a symlink). */
  target: string;
  json: JsonText;
  /** The parsed top-level object. */
  doc: Record<string, unknown>;
  serversKey: ServersKey;
  /** The servers map (empty when the file has none yet). */
  servers: Record<string, unknown>;
  /** Permission bits of the file (kept on write). */
  mode: number;
  /** What is odd in the file but not an error (duplicate keys). */
  warnings: string[];
}

/** The file changed between the read a change was made on and its write. */
export class ConfigChangedMeanwhile extends Error {
  override readonly name = 'ConfigChangedMeanwhile';
}

/**
 * Reads the config file for editing.
 * @throws ConfigError when the file is missing, not JSON/JSONC, nested too deep, or its top
 * level / servers map is not an object.
 */
export function readConfigDocument(path: string): ConfigDocument {
  let bytes: Buffer;
  let mode: number;
  let target: string;
  try {
    target = realpathSync(path);
    bytes = readFileSync(target);
    mode = statSync(target).mode & 0o7777;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError([
      code === 'ENOENT' ? `config file not found: ${path}` : `cannot read config file ${path}: ${code ?? String(err)}`,
    ]);
  }
  return documentOf(path, target, bytes, mode);
}

function documentOf(path: string, target: string, bytes: Buffer, mode: number): ConfigDocument {
  let json: JsonText;
  try {
    json = parseJsonText(bytes, path);
  } catch (err) {
    if (err instanceof JsonTextError)
      throw new ConfigError([`${err.message}; fix it by hand first (the panel only writes valid files)`]);
    throw err;
  }
  return withText(path, target, json, mode);
}

/** The document of parsed text `json` of the file at `path`. @throws ConfigError when its top level or servers map is not an object. */
export function withText(path: string, target: string, json: JsonText, mode: number): ConfigDocument {
  const raw = json.value === undefined ? {} : json.value;
  if (!isPlainObject(raw)) throw new ConfigError([`config must be a JSON object`], path);
  const serversKey: ServersKey = raw.mcpServers === undefined && isPlainObject(raw.servers) ? 'servers' : 'mcpServers';
  const servers = raw[serversKey] ?? {};
  if (!isPlainObject(servers))
    throw new ConfigError([`${serversKey} must be an object mapping server ids to server entries`], path);
  return {
    path,
    target,
    json,
    doc: raw,
    serversKey,
    servers,
    mode,
    warnings: json.duplicates.map((d) => `${path}: ${d}`),
  };
}

/** What runs inside a write, at the points a test acts on. */
export interface WriteHooks {
  /** Runs after the last check, just before the rename: where another program's save is hardest to see. */
  afterCheck?: () => void;
}

/** The whole content of open file `fd`, read from its start. */
function readHeld(fd: number): Buffer {
  const chunks: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.max(fstatSync(fd).size - pos, 0) + 4096);
    const n = readSync(fd, chunk, 0, chunk.length, pos);
    if (n === 0) return Buffer.concat(chunks);
    chunks.push(chunk.subarray(0, n));
    pos += n;
  }
}

/**
 * Writes `next` over the document's file: first the previous bytes to `<file>.bak`, then the
 * new bytes atomically, both with the file's mode. `backup: false` (the previous bytes hold a
 * secret the change moved to the store: movedSecrets.ts) removes any `.bak` instead.
 * @throws ConfigChangedMeanwhile when another program saved the file since `before` was read:
 * nothing renamed, or (a save written in place while the rename ran) that save put back.
 */
export function writeConfigDocument(
  before: ConfigDocument,
  next: Buffer,
  opts: { backup?: boolean } & WriteHooks = {},
): void {
  const file = before.target;
  const removed = () => new ConfigChangedMeanwhile(`${before.path} was removed while the change was being saved`);
  const changed = () =>
    new ConfigChangedMeanwhile(`${before.path} was changed by another program while the change was being saved`);
  let held: number | undefined;
  try {
    held = openSync(file, 'r');
  } catch {
    throw removed();
  }
  const release = () => {
    if (held !== undefined) closeSync(held);
    held = undefined;
  };
  try {
    const fd = held;
    const unchanged = () => {
      if (!readHeld(fd).equals(before.json.bytes)) throw changed();
      let now: ReturnType<typeof statSync>;
      try {
        now = statSync(file);
      } catch {
        throw removed();
      }
      const mine = fstatSync(fd);
      if (now.ino !== mine.ino || now.dev !== mine.dev) throw changed();
    };
    unchanged();
    if (opts.backup === false) rmSync(`${file}.bak`, { force: true });
    else writeAtomic(`${file}.bak`, before.json.bytes, before.mode);
    writeAtomic(file, next, before.mode, () => {
      unchanged();
      opts.afterCheck?.();
      if (process.platform === 'win32') release();
    });
    if (held === undefined) return;
    // The file replaced: what another program wrote into it in place since the check is there.
    const saved = readHeld(held);
    if (saved.equals(before.json.bytes)) return;
    writeAtomic(file, saved, before.mode, () => {
      // Saved again since the rename: that newest save stands.
      if (!readFileSync(file).equals(next)) throw changed();
    });
    throw changed();
  } finally {
    release();
  }
}
