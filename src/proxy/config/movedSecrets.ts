/**
 * Whether a change takes a secret out of the config file: an entry's env value, header value or
 * `authToken` that was kept in clear and is now a `${secret:NAME}` reference (the panel's "Keep
 * new values in the secret store", or a reference typed in its place). The previous file then
 * holds a value the user moved to the store, so its `.bak` is not kept (configFile.ts
 * `writeConfigDocument`).
 */
import { secretRefName } from '../secrets/secretStore.js';
import { isPlainObject } from './configEntry.js';

/** The clear values `entry` holds in its secret fields, by field and key. */
function secretFields(entry: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!isPlainObject(entry)) return out;
  for (const field of ['env', 'headers'] as const) {
    const values = entry[field];
    if (!isPlainObject(values)) continue;
    for (const [k, v] of Object.entries(values)) if (typeof v === 'string') out.set(`${field}\0${k}`, v);
  }
  if (typeof entry.authToken === 'string') out.set('authToken', entry.authToken);
  return out;
}

/** True when entry `id` of `before`, now `newId` of `after`, holds a reference where it held a clear value. */
export function movesSecretOut(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  id: string,
  newId: string = id,
): boolean {
  const was = secretFields(before[id]);
  const now = secretFields(after[newId]);
  for (const [key, value] of now)
    if (secretRefName(value) !== undefined) {
      const old = was.get(key);
      if (old !== undefined && old !== '' && !old.includes('${')) return true;
    }
  return false;
}
