/**
 * Pins kept under a server's id (`<pins folder>/<id>.json`, pinStore.ts `namedPinFilePath`),
 * taken before pins were keyed by the launch: such a file does not say which server it was
 * taken from, so its pins are evidence, not a key. A server whose own pin file does not exist
 * yet takes the file of its id over when most of the tools both name agree: the listed
 * definition is the one pinned there, or the one the user rejected there; the disagreeing ones
 * are then drifts, withheld as before. When as many or more disagree, or none is shared, the
 * file is another server's (a test fixture, an entry replaced under the same id): the server is
 * a first sight. The file itself is left as it is: another entry of that id, or another
 * version of the runtime, may read it.
 */
import { canonicalJson, definitionOf, sha256 } from './canonicalTool.js';
import { byName, namedPinFilePath, readPins, type PinDocument } from './pinStore.js';

type Item = Record<string, unknown>;

export type NamedPins =
  | { kind: 'none' }
  | { kind: 'unreadable'; path: string; error: string }
  /** The file is this server's: its pins and rejections, to be written under the launch. */
  | { kind: 'taken'; path: string; doc: PinDocument; agree: number; disagree: number }
  | { kind: 'other'; path: string; agree: number; disagree: number };

/** What the file named after server `id` in `dir` is to a server listing `listed`. */
export function namedPins(dir: string, id: string, listed: Item[]): NamedPins {
  const path = namedPinFilePath(dir, id);
  const read = readPins(path, id);
  if (!read.ok) return { kind: 'unreadable', path, error: read.error };
  if (read.absent) return { kind: 'none' };
  const doc = read.doc;
  let agree = 0;
  let disagree = 0;
  for (const tool of listed) {
    const name = String(tool.name);
    const pin = doc.tools[name];
    if (!pin) continue;
    let hash: string;
    try {
      hash = sha256(canonicalJson(definitionOf(tool)));
    } catch {
      continue; // too deep to pin: the gate says so on its own
    }
    if (hash === pin.hash || hash === doc.rejected[name]) agree++;
    else disagree++;
  }
  if (agree > disagree)
    return {
      kind: 'taken',
      path,
      doc: { ...doc, tools: byName(doc.tools), rejected: byName(doc.rejected) },
      agree,
      disagree,
    };
  return { kind: 'other', path, agree, disagree };
}
