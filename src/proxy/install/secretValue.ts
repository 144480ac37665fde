/**
 * Where the secrets the user typed into an install go: into the secret store of this process
 * (secrets/openSecretStore.ts: the OS keychain, or the app's store) under the names the store
 * gives an entry's values (secretStore.ts `secretNameFor`), the entry keeping only their
 * `${secret:NAME}` references; without a usable store, into the entry itself (the config file
 * is private, 0600), as the plan said before the user confirmed.
 */
import type { SecretStore } from '../secrets/secretStore.js';
import { secretNameFor } from '../secrets/secretStore.js';

/** The store's module (and its native keychain binding) is loaded by the first install that has a secret. */
async function secretStore(): Promise<SecretStore> {
  return (await import('../secrets/openSecretStore.js')).openSecretStore();
}

/** Where an install's secrets would be kept now: what the consent says. */
export async function secretsKeptWhere(): Promise<'config' | 'store'> {
  return (await (await secretStore()).available()).ok ? 'store' : 'config';
}

/** The store's name for the secret value of an entry's variable (`env`) or header. */
export function valueSecretName(serverId: string, field: 'env' | 'headers', key: string): string {
  return secretNameFor(serverId, field, key);
}

/**
 * The store's name for a secret the user typed into the field `inputKey` that is a piece of an
 * argument: the entry's name for a variable `arg.<inputKey>`, which no install writes as a
 * variable (the confirm refuses a plan where two values would share a name).
 */
export function argSecretName(serverId: string, inputKey: string): string {
  return secretNameFor(serverId, 'env', `arg.${inputKey}`);
}

/** Keeps each value under its name. @throws when the store cannot be used or refuses one. */
export async function storeSecrets(values: ReadonlyMap<string, string>): Promise<void> {
  const store = await secretStore();
  const ok = await store.available();
  if (!ok.ok) throw new Error(ok.reason);
  for (const [name, value] of values) await store.set(name, value);
}

/** Forgets what an install kept in the store (a store that cannot be used now keeps them). */
export async function forgetSecrets(names: readonly string[]): Promise<void> {
  const store = await secretStore();
  if (!(await store.available()).ok) return;
  for (const name of names) await store.delete(name);
}
