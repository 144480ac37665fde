/**
 * One server's pin file, `<pins folder>/launch.<identity>.json` (0600, in a 0700 folder), named
 * by the server's launch identity (launchIdentity.ts): each tool's pinned definition and its
 * hash, and the definitions the user rejected. Read afresh before each check (another process
 * on the same folder may have accepted a change), written whole and atomically
 * (common/writeAtomic.ts) after merging into what is on disk. A file that cannot be read as pins
 * (bad JSON, a wrong shape, a hash that does not match its definition, too large) is reported,
 * never taken as empty: its server's tools are then unverified. Files named after a server id
 * (`<id>.json`) hold pins taken before pins were keyed by the launch (namedPins.ts).
 */
import { mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../common/writeAtomic.js';
import { errorText } from '../common/logger.js';
import { canonicalJson, sha256, type ToolDefinition } from './canonicalTool.js';

/** A pin file larger than this is not read (a server's 2000 tools of 16 KiB each fit). */
export const MAX_PIN_FILE_BYTES = 32 * 1024 * 1024;
/** At most this many tools of one server are pinned; later new ones are withheld under `block`. */
export const MAX_PINNED_TOOLS = 2000;

export interface Pin {
  hash: string;
  definition: ToolDefinition;
  pinnedAt: string;
}

export interface PinDocument {
  version: 1;
  /** The id of the entry that wrote the file last (for a reader: the file is found by `launch`). */
  server: string;
  /** The launch identity whose pins these are (launchIdentity.ts); absent in a file named after a server id. */
  launch?: string;
  tools: Record<string, Pin>;
  /** Tool name → the hash of the definition the user rejected. */
  rejected: Record<string, string>;
  /** Set when the file was made again after an unreadable one: an unpinned tool is unverified, not new. */
  recovering?: boolean;
}

/** A read pin file; `absent`: there was none (the document is empty). */
export type PinRead = { ok: true; doc: PinDocument; absent?: true } | { ok: false; error: string };

/** Where one server's pins are: its file, and what a new document says of it. */
export interface PinFile {
  dir: string;
  path: string;
  server: string;
  launch: string;
}

const HASH_RE = /^[0-9a-f]{64}$/;

/** The pin file of the server whose launch identity is `launch`, in `dir`. */
export function pinFile(dir: string, server: string, launch: string): PinFile {
  return { dir, path: join(dir, `launch.${launch}.json`), server, launch };
}

/**
 * The file named after server `id` in `dir` (namedPins.ts): the id itself when it is a plain
 * name, else a safe form and a hash. Before `.json` such a name holds no dot; a launch file's does.
 */
export function namedPinFilePath(dir: string, id: string): string {
  const plain = /^[A-Za-z0-9_-]{1,80}$/.test(id);
  return join(
    dir,
    `${plain ? id : `${id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60)}-${sha256(id).slice(0, 12)}`}.json`,
  );
}

export function emptyPins(server: string, launch?: string): PinDocument {
  return { version: 1, server, ...(launch ? { launch } : {}), tools: byName(), rejected: byName() };
}

/**
 * An object keyed by tool names without a prototype: a tool named `toString` or `__proto__` is
 * looked up and stored as its own key, never as a property every object has.
 */
export function byName<T>(from: Record<string, T> = {}): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, from);
}

export function readPins(path: string, server: string): PinRead {
  let text: string;
  try {
    if (statSync(path).size > MAX_PIN_FILE_BYTES)
      return { ok: false, error: `${path} is larger than ${MAX_PIN_FILE_BYTES} bytes` };
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, doc: emptyPins(server), absent: true };
    return { ok: false, error: `${path} cannot be read: ${errorText(err)}` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: `${path} is not valid JSON` };
  }
  const why = shapeError(raw);
  if (why) return { ok: false, error: `${path} ${why}` };
  const doc = raw as PinDocument;
  return { ok: true, doc: { ...doc, tools: byName(doc.tools), rejected: byName(doc.rejected) } };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function shapeError(raw: unknown): string | undefined {
  if (!isObject(raw) || raw.version !== 1 || !isObject(raw.tools) || !isObject(raw.rejected))
    return 'is not a pin file (version 1 with "tools" and "rejected")';
  for (const [name, pin] of Object.entries(raw.tools)) {
    if (!isObject(pin) || typeof pin.hash !== 'string' || !HASH_RE.test(pin.hash) || !isObject(pin.definition))
      return `has a malformed pin for "${name}"`;
    let text: string;
    try {
      text = canonicalJson(pin.definition);
    } catch {
      return `has a malformed pin for "${name}"`;
    }
    if (sha256(text) !== pin.hash) return `has a pin for "${name}" whose hash does not match its definition`;
  }
  for (const [name, hash] of Object.entries(raw.rejected))
    if (typeof hash !== 'string' || !HASH_RE.test(hash)) return `has a malformed rejection for "${name}"`;
  return undefined;
}

/**
 * Reads the file, lets `change` edit it, writes it. An unreadable file is set aside as
 * `<file>.corrupt` only when `replaceUnreadable` (an accept after the user saw it unverified);
 * otherwise it is left as it is and the error returned.
 */
export function updatePins(
  file: PinFile,
  change: (doc: PinDocument, fresh: boolean) => void,
  replaceUnreadable = false,
): string | undefined {
  const { dir, path, server, launch } = file;
  const read = readPins(path, server);
  let doc: PinDocument;
  let fresh = false;
  if (read.ok) doc = read.doc;
  else if (!replaceUnreadable) return read.error;
  else {
    doc = { ...emptyPins(server, launch), recovering: true };
    fresh = true;
  }
  change(doc, fresh);
  doc.server = server;
  doc.launch = launch;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (fresh) renameSync(path, `${path}.corrupt`);
    writeAtomic(path, `${JSON.stringify(doc, null, 1)}\n`, 0o600);
  } catch (err) {
    return `${path} cannot be written: ${errorText(err)}`;
  }
  return undefined;
}
