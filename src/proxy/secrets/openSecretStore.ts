/**
 * Which secret store this process uses, opened once: the app's (a file under the app's
 * safeStorage-kept key) when the app handed that key down, else the OS keychain. Loaded on
 * first use: a config without `${secret:...}` and a bridge whose panel never asks do not load
 * it, nor the keychain's native module.
 */
import { OAUTH_KEY_ENV, SECRET_STORE_ENV } from '../common/envNames.js';
import { codecFromEnv } from '../oauth/keyCodec.js';
import { AppSecretStore, defaultSecretsFile } from './appSecretStore.js';
import { KeyringStore } from './keyringStore.js';
import { NO_SAFE_STORAGE, NoSecretStore } from './noSecretStore.js';

export { storeLabel } from './secretStore.js';
import type { SecretAvailability, SecretStore } from './secretStore.js';
import type { SecretStoreStatus } from '../../shared/status.js';

export type { SecretStore };

let shared: SecretStore | undefined;

/** The store `env` names (see the file comment); a fresh one, for tests and for the app's main process. */
export function createSecretStore(env: NodeJS.ProcessEnv = process.env): SecretStore {
  const codec = env[OAUTH_KEY_ENV] ? codecFromEnv(env) : undefined;
  if (codec) return new AppSecretStore(defaultSecretsFile(env), codec);
  // The app said it has no safeStorage key: its bridge does not fall back to a keychain the app cannot use either.
  if (env[SECRET_STORE_ENV] === 'app') return new NoSecretStore(NO_SAFE_STORAGE);
  return new KeyringStore();
}

/** This process's one store (made from `process.env` at the first call). */
export function openSecretStore(env: NodeJS.ProcessEnv = process.env): SecretStore {
  return (shared ??= createSecretStore(env));
}

/** What the status and the panel say of the store. */
export async function secretStoreState(store: SecretStore = openSecretStore()): Promise<SecretStoreStatus> {
  const a: SecretAvailability = await store.available();
  const state: SecretStoreStatus = a.ok
    ? { backend: store.backend, available: true }
    : { backend: store.backend, available: false, reason: a.reason };
  return state;
}
