/**
 * "Always allow" made lasting: the tool gets `"allow"` in its server's own `"approval"` in the
 * user's config file, edited in place (jsonTextEdit.ts), so the user sees and can undo it where
 * they edit everything else. A changed approval restarts no server (configDiff.ts: an option).
 * A tool whose name the config would read as a pattern is not written (kept in memory only).
 */
import { readConfigDocument, writeConfigDocument } from './configFile.js';
import { applyOps, type JsonOp } from './jsonTextEdit.js';
import { isPlainObject } from './configEntry.js';
import { isGlob } from './toolFilter.js';

/** Writes `"allow"` for `tool` into server `serverId`'s `"approval"` in `file`; false when the entry is not there. */
export function rememberAlwaysAllow(file: string, serverId: string, tool: string): boolean {
  // A key with `*` or `?` is a pattern there: for a tool named so, it would allow other tools too.
  if (isGlob(tool))
    throw new Error('its name holds "*" or "?", which "approval" reads as a pattern; allowed until the bridge stops');
  const doc = readConfigDocument(file);
  const entry = doc.servers[serverId];
  if (!isPlainObject(entry)) return false;
  const at = [doc.serversKey, serverId, 'approval'];
  const now = entry.approval;
  const op: JsonOp = isPlainObject(now)
    ? { op: 'set', path: [...at, tool], value: 'allow' }
    : // A server-wide answer stays for its other tools: an exact name wins over the "*" glob.
      { op: 'set', path: at, value: typeof now === 'string' ? { [tool]: 'allow', '*': now } : { [tool]: 'allow' } };
  writeConfigDocument(doc, applyOps(doc.json, [op], doc.path).bytes);
  return true;
}
