/**
 * MCP Apps view pins on disk, beside the tool pins (pinning/pinFolder.ts) and keyed the same
 * way, by the server's launch identity (pinning/launchIdentity.ts):
 * `<pins folder>/views.<identity>.json` (0600, in a 0700 folder) holds the SHA-256 of each view
 * resource (its URI, HTML and `_meta.ui`, as canonical JSON) as first shown. A later resource
 * with another hash is a drift: refused, its hash shown, until the user accepts it (then it is
 * the pin). Read afresh at each check (another bridge of the same user may have accepted it);
 * a file that cannot be read as view pins is reported, never taken as empty.
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerEntry } from '../config/configTypes.js';
import { errorText } from '../common/logger.js';
import { writeAtomic } from '../common/writeAtomic.js';
import { canonicalJson, sha256 } from '../pinning/canonicalTool.js';
import { launchIdentity } from '../pinning/launchIdentity.js';

/** A view pin file larger than this is not read (10 000 views). */
export const MAX_VIEW_PIN_FILE_BYTES = 2 * 1024 * 1024;

interface ViewPinDocument {
  version: 1;
  /** The id of the entry that wrote the file last. */
  server: string;
  launch: string;
  /** View URI → its pinned hash. */
  views: Record<string, { hash: string; pinnedAt: string }>;
}

/** A view that differs from its pin: what the user is shown, and accepts by its `hash`. */
export interface ViewDrift {
  server: string;
  uri: string;
  /** The hash of the resource the server gives now. */
  hash: string;
  /** The hash pinned (first shown, or last accepted). */
  pinned: string;
}

export type ViewPinCheck = { ok: true } | { ok: false; drift?: ViewDrift; error: string };

const HASH_RE = /^[0-9a-f]{64}$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The hash a view resource is pinned by. */
export function viewHash(resource: object): string {
  return sha256(canonicalJson(resource));
}

export class ViewPins {
  constructor(
    /** The pins folder (pinning/pinFolder.ts). */
    readonly dir: string,
  ) {}

  /** `resource` (view `uri` of `entry`) against its pin: a first sight is pinned; another hash is a drift. */
  check(entry: ServerEntry, uri: string, resource: object): ViewPinCheck {
    const hash = viewHash(resource);
    const launch = launchIdentity(entry);
    const path = this.path(launch);
    const read = readViewPins(path, entry.id, launch);
    if (!read.ok) return { ok: false, error: `the views of server "${entry.id}" are unverified: ${read.error}` };
    const pin = read.doc.views[uri];
    if (pin?.hash === hash) return { ok: true };
    if (pin) {
      const drift = { server: entry.id, uri, hash, pinned: pin.hash };
      return {
        ok: false,
        drift,
        error: `the view ${uri} of server "${entry.id}" changed since it was first shown (a drift): accept hash ${hash} to show it`,
      };
    }
    const wrote = this.write(path, entry.id, launch, (doc) => (doc.views[uri] = { hash, pinnedAt: now() }));
    return wrote === undefined ? { ok: true } : { ok: false, error: wrote };
  }

  /** The user accepted view `uri` of `entry` as `hash` (the drift's): it becomes the pin. */
  accept(entry: ServerEntry, uri: string, hash: string): string | undefined {
    if (!HASH_RE.test(hash)) return 'a view hash is 64 hex digits';
    const launch = launchIdentity(entry);
    return this.write(this.path(launch), entry.id, launch, (doc) => (doc.views[uri] = { hash, pinnedAt: now() }));
  }

  private path(launch: string): string {
    return join(this.dir, `views.${launch}.json`);
  }

  private write(
    path: string,
    server: string,
    launch: string,
    change: (doc: ViewPinDocument) => void,
  ): string | undefined {
    const read = readViewPins(path, server, launch);
    if (!read.ok) return read.error;
    change(read.doc);
    read.doc.server = server;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      writeAtomic(path, `${JSON.stringify(read.doc, null, 1)}\n`, 0o600);
    } catch (err) {
      return `${path} cannot be written: ${errorText(err)}`;
    }
    return undefined;
  }
}

const now = () => new Date().toISOString();

function readViewPins(
  path: string,
  server: string,
  launch: string,
): { ok: true; doc: ViewPinDocument } | { ok: false; error: string } {
  let text: string;
  try {
    if (statSync(path).size > MAX_VIEW_PIN_FILE_BYTES)
      return { ok: false, error: `${path} is larger than ${MAX_VIEW_PIN_FILE_BYTES} bytes` };
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return { ok: true, doc: { version: 1, server, launch, views: Object.create(null) as ViewPinDocument['views'] } };
    return { ok: false, error: `${path} cannot be read: ${errorText(err)}` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: `${path} is not valid JSON` };
  }
  if (!isObject(raw) || raw.version !== 1 || !isObject(raw.views))
    return { ok: false, error: `${path} is not a view pin file (version 1 with "views")` };
  for (const [uri, pin] of Object.entries(raw.views))
    if (!isObject(pin) || typeof pin.hash !== 'string' || !HASH_RE.test(pin.hash))
      return { ok: false, error: `${path} has a malformed pin for ${JSON.stringify(uri.slice(0, 200))}` };
  const views = Object.assign(Object.create(null) as ViewPinDocument['views'], raw.views);
  return { ok: true, doc: { version: 1, server, launch, views } };
}
