/**
 * The config file as a document to edit: its exact bytes and syntax tree (jsonText.ts, JSON
 * or JSONC), the servers map it holds, and the write back: a `.bak` of the previous bytes,
 * then the new bytes atomically.
 *
 * Edits are made in the text (jsonTextEdit.ts), so every byte outside a change is kept:
 * comments, key order, unknown fields, the BOM, line ends, numbers as written. The servers
 * are under `mcpServers`, or under `servers` in a VS Code `mcp.json` that has no
 * `mcpServers`. The write is a temp file in the same folder (same file system), fsync'ed,
 * given the old file's mode, then renamed over the file; just before the rename the file is
 * read again, and when it is no longer what the change was made on (an editor saved it
 * meanwhile), nothing is renamed ({@link ConfigChangedMeanwhile}) so that save is not undone.
 * Synchronous on purpose: two edits in one process can never interleave.
 */
import { readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
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

/**
 * Writes `next` over the document's file: first the previous bytes to `<file>.bak`, then the
 * new bytes atomically, both with the file's mode. `backup: false` (the previous bytes hold a
 * secret the change moved to the store: movedSecrets.ts) removes any `.bak` instead.
 * @throws ConfigChangedMeanwhile (nothing renamed) when the file is no longer `before`.
 */
export function writeConfigDocument(before: ConfigDocument, next: Buffer, opts: { backup?: boolean } = {}): void {
  const unchanged = () => {
    let now: Buffer;
    try {
      now = readFileSync(before.target);
    } catch {
      throw new ConfigChangedMeanwhile(`${before.path} was removed while the change was being saved`);
    }
    if (!now.equals(before.json.bytes))
      throw new ConfigChangedMeanwhile(
        `${before.path} was changed by another program while the change was being saved`,
      );
  };
  unchanged();
  if (opts.backup === false) rmSync(`${before.target}.bak`, { force: true });
  else writeAtomic(`${before.target}.bak`, before.json.bytes, before.mode);
  writeAtomic(before.target, next, before.mode, unchanged);
}
