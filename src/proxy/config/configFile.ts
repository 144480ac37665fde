/**
 * The config file as a document to edit: read with its layout (indent, final newline, mode),
 * written back atomically with a `.bak` of the previous version.
 *
 * The format is JSON (the parser, config.ts, takes no comments), so there are no comments to
 * keep; key order and every field this runtime does not know are kept because edits change
 * the parsed object in place and the whole object is written back. The write is a temp file
 * in the same folder (same file system), fsync'ed, given the old file's mode, then renamed
 * over the file: a reader sees the old text or the new one, never a half-written file.
 * Synchronous on purpose: two edits in one process can never interleave.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { writeAtomic } from '../common/writeAtomic.js';
import { ConfigError } from './config.js';
import { isPlainObject } from './configEntry.js';

/** A parsed config file and what is needed to write it back the way it was written. */
export interface ConfigDocument {
  path: string;
  /** The file actually written: `path` with symlinks resolved (a dotfiles symlink stays a symlink). */
  target: string;
  /** The file's text as read (BOM removed). */
  text: string;
  /** The parsed top-level object; `mcpServers` is always an object here. */
  doc: Record<string, unknown> & { mcpServers: Record<string, unknown> };
  indent: string;
  /** Permission bits of the file (kept on write). */
  mode: number;
}

/** The indent of the first indented line, default two spaces. */
function detectIndent(text: string): string {
  const m = /\n([ \t]+)\S/.exec(text);
  return m ? m[1] : '  ';
}

/**
 * Reads the config file for editing.
 * @throws ConfigError when the file is missing, not JSON, or its top level / `mcpServers` is not an object.
 */
export function readConfigDocument(path: string): ConfigDocument {
  let text: string;
  let mode: number;
  let target: string;
  try {
    target = realpathSync(path);
    text = readFileSync(target, 'utf8').replace(/^\uFEFF/, '');
    mode = statSync(target).mode & 0o7777;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError([code === 'ENOENT' ? `config file not found: ${path}` : `cannot read config file ${path}: ${code ?? String(err)}`]);
  }
  let raw: unknown;
  try {
    raw = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new ConfigError([`${path} is not valid JSON; fix it by hand first (the panel only writes valid files)`]);
  }
  if (!isPlainObject(raw)) throw new ConfigError([`config must be a JSON object`], path);
  if (raw.mcpServers === undefined) raw.mcpServers = {};
  if (!isPlainObject(raw.mcpServers)) throw new ConfigError(['mcpServers must be an object mapping server ids to server entries'], path);
  return { path, target, text, doc: raw as ConfigDocument['doc'], indent: detectIndent(text), mode };
}

/** The text `doc` is written as: its indent, a final newline. */
export function serializeConfig(doc: unknown, indent: string): string {
  return `${JSON.stringify(doc, null, indent)}\n`;
}

/**
 * Writes `next` over the document's file: first the previous text to `<file>.bak`, then the
 * new text atomically, both with the file's mode.
 */
export function writeConfigDocument(before: ConfigDocument, next: unknown): void {
  writeAtomic(`${before.target}.bak`, before.text, before.mode);
  writeAtomic(before.target, serializeConfig(next, before.indent), before.mode);
}
