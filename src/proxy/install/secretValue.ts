/**
 * Where a secret an install was given goes: into the secret store of this process
 * (secrets/openSecretStore.ts: the OS keychain, or the app's store) under the entry's own name
 * for it (`<id>.<VAR>`, `<id>.header.<Name>`), the entry keeping only the `${secret:NAME}`
 * reference; without a usable store, into the entry itself (the config file is private, 0600),
 * as the plan said before the user confirmed.
 */
import type { SecretStore } from '../secrets/secretStore.js';
import { secretNameFor, secretRef } from '../secrets/secretStore.js';
import { fromLiteral } from './literal.js';

export interface StoredSecret {
  /** What the entry holds for it. */
  value: string;
  /** Where the value is kept: `config` (in the 0600 file) or `store`. */
  kept: 'config' | 'store';
  /** Its name in the store, when it is kept there. */
  name?: string;
}

/** The store's module (and its native keychain binding) is loaded by the first install that has a secret. */
async function secretStore(): Promise<SecretStore> {
  return (await import('../secrets/openSecretStore.js')).openSecretStore();
}

/** Where an install's secrets would be kept now: what the consent says. */
export async function secretsKeptWhere(): Promise<'config' | 'store'> {
  return (await (await secretStore()).available()).ok ? 'store' : 'config';
}

export async function storeSecretValue(
  serverId: string,
  where: 'env' | 'headers',
  key: string,
  value: string,
): Promise<StoredSecret> {
  const store = await secretStore();
  if (!(await store.available()).ok) return { value, kept: 'config' };
  const name = secretNameFor(serverId, where, key);
  // The entry's text is literal (literal.ts); the store keeps the value itself.
  await store.set(name, fromLiteral(value));
  return { value: secretRef(name), kept: 'store', name };
}

/** Forgets what an install kept in the store (a store that cannot be used now keeps them). */
export async function forgetSecrets(names: readonly string[]): Promise<void> {
  const store = await secretStore();
  if (!(await store.available()).ok) return;
  for (const name of names) await store.delete(name);
}
