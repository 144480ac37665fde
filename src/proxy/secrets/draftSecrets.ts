/**
 * The panel's "keep in the secret store": each new env value (stdio) or header value
 * (remote) of a draft goes to the store under the entry's own name for it (secretStore.ts
 * `secretNameFor`: `<id>/env/<VAR>`, `<id>/header/<Name>`), and the draft carries only its
 * `${secret:NAME}` reference to the file. A draft whose id is not a valid server name stores
 * nothing (the change is refused for its name). A value still masked (kept as stored), empty, or holding a `${...}`
 * reference the user wrote is left as it is; any other goes to the store as what it expands
 * to (`$$` is one `$`: config/envExpand.ts), so the server gets the same value either way. No store: the change is refused, saying
 * why, so a secret never lands in the file when the user asked for the store.
 */
import { SECRET_MASK, type ConfigChange, type EntryDraft } from '../../shared/configContract.js';
import { secretNameFor, secretRef, storeLabel, validSecretOwner, type SecretStore } from './secretStore.js';

export type KeptDraft = { ok: true; change: ConfigChange; stored: string[] } | { ok: false; error: string };

/** True for a draft that asks for its secrets to be kept in the store. */
export function wantsStore(change: ConfigChange): boolean {
  return (change.op === 'add' || change.op === 'update') && change.entry.secrets === 'store';
}

export async function keepDraftSecrets(change: ConfigChange, store: SecretStore): Promise<KeptDraft> {
  if (change.op !== 'add' && change.op !== 'update') return { ok: true, change, stored: [] };
  const { secrets: _flag, ...entry } = change.entry;
  void _flag;
  if (_flag !== 'store') return { ok: true, change: { ...change, entry }, stored: [] };
  const id = change.op === 'update' ? (change.newId ?? change.id) : change.id;
  if (!validSecretOwner(id)) return { ok: true, change: { ...change, entry }, stored: [] };
  const field = entry.kind === 'remote' ? 'headers' : 'env';
  const values = entry[field] ?? {};
  const moving = Object.entries(values).filter(([, v]) => v !== '' && v !== SECRET_MASK && !v.includes('${'));
  if (moving.length === 0) return { ok: true, change: { ...change, entry }, stored: [] };
  const ok = await store.available();
  if (!ok.ok)
    return {
      ok: false,
      error: `not saved: ${ok.reason}. Untick "Keep new values in the secret store" to save them in the config file (readable only by you)`,
    };
  const next: Record<string, string> = { ...values };
  const stored: string[] = [];
  for (const [key, value] of moving) {
    const name = secretNameFor(id, field, key);
    try {
      await store.set(name, value.replace(/\$\$/g, '$$'));
    } catch (err) {
      return {
        ok: false,
        error: `not saved: ${storeLabel(store.backend)} refused ${name} (${(err as Error).message})`,
      };
    }
    next[key] = secretRef(name);
    stored.push(name);
  }
  const kept: EntryDraft = { ...entry, [field]: next };
  return { ok: true, change: { ...change, entry: kept }, stored };
}
