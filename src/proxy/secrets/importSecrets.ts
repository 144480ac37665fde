/**
 * "Move secrets to the keychain" on an import: each plain value the import preview named as
 * secret (config/configImport.ts `secrets`: env values of stdio entries, header values of
 * remote ones) goes to the store under the name the panel's form would give it
 * (`<id>/env/<VAR>`, `<id>/header/<Name>`), and the import writes the entries with their
 * `${secret:NAME}` references instead. No store, or one that refuses a value: the import is
 * refused, saying why, so a value never lands in the file when the user asked for the store.
 * An import that reads stored secrets the user did not say yes to (configImport.ts
 * `unconfirmedSecretRefs`) stores nothing: the write refuses it anyway.
 */
import type { ConfigChange } from '../../shared/configContract.js';
import { unconfirmedSecretRefs, type ImportPlan } from '../config/configImport.js';
import { secretNameFor, secretRef, storeLabel, type SecretStore } from './secretStore.js';

export type KeptImport = { ok: true; change: ConfigChange; stored: string[] } | { ok: false; error: string };

/**
 * The import `change` (with `secrets: "store"`) with its secrets in `store`: a change whose
 * text is the planned entries, references in place of the values. `plan` reads the snippet
 * as the import will (ConfigStore.planImport).
 */
export async function keepImportSecrets(
  change: Extract<ConfigChange, { op: 'import' }>,
  store: SecretStore,
  plan: (text: string) => ImportPlan,
): Promise<KeptImport> {
  const { secrets: _flag, ...plain } = change;
  void _flag;
  const planned = plan(change.text);
  if (!planned.preview.ok) return { ok: true, change: plain, stored: [] };
  const unasked = unconfirmedSecretRefs(planned.preview, change.allowSecretRefs);
  if (unasked) return { ok: false, error: unasked };
  const moving: { id: string; field: 'env' | 'headers'; key: string; value: string }[] = [];
  for (const item of planned.preview.add) {
    const entry = planned.entries[item.id];
    const field = item.kind === 'stdio' ? 'env' : 'headers';
    for (const key of item.secrets ?? [])
      moving.push({ id: item.id, field, key, value: (entry[field] as Record<string, string>)[key] });
  }
  if (moving.length === 0) return { ok: true, change: plain, stored: [] };
  const ok = await store.available();
  if (!ok.ok)
    return {
      ok: false,
      error: `not imported: ${ok.reason}. Untick "Move secrets to the keychain" to import them into the config file (readable only by you)`,
    };
  const entries: Record<string, Record<string, unknown>> = { ...planned.entries };
  const stored: string[] = [];
  for (const m of moving) {
    const name = secretNameFor(m.id, m.field, m.key);
    try {
      await store.set(name, m.value);
    } catch (err) {
      return {
        ok: false,
        error: `not imported: ${storeLabel(store.backend)} refused ${name} (${(err as Error).message})`,
      };
    }
    const entry = entries[m.id];
    entries[m.id] = {
      ...entry,
      [m.field]: { ...(entry[m.field] as Record<string, string>), [m.key]: secretRef(name) },
    };
    stored.push(name);
  }
  // The references written here name values the import brings: they need no yes.
  const allowSecretRefs = [...(change.allowSecretRefs ?? []), ...stored];
  return { ok: true, change: { op: 'import', text: JSON.stringify({ mcpServers: entries }), allowSecretRefs }, stored };
}
