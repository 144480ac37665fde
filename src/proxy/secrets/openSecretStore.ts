/**
 * Which secret store this process uses, opened once: the app's (a file under the app's
 * safeStorage-kept key) when the app handed that key down, else the OS keychain. Loaded on
 * first use: a config without `${secret:...}` and a bridge whose panel never asks do not load
 * it, nor the keychain's native module.
 */
import { OAUTH_KEY_ENV } from '../common/envNames.js';
import { codecFromEnv } from '../oauth/keyCodec.js';
import { AppSecretStore, defaultSecretsFile } from './appSecretStore.js';
import { KeyringStore } from './keyringStore.js';
import type { SecretAvailability, SecretBackend, SecretStore } from './secretStore.js';
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

/** Set to `app` by the app for its bridge: secrets come from the app's store only. */
export const SECRET_STORE_ENV = 'QIMING_SECRET_STORE';
const NO_SAFE_STORAGE = "the app's safeStorage cannot encrypt here (no OS keychain)";

/** No store: every use says why. */
export class NoSecretStore implements SecretStore {
  readonly backend = 'none' as const;
  constructor(private readonly reason: string) {}
  available(): Promise<SecretAvailability> {
    return Promise.resolve({ ok: false, reason: this.reason });
  }
  get(): Promise<string | undefined> {
    return Promise.reject(new Error(this.reason));
  }
  set(): Promise<void> {
    return Promise.reject(new Error(this.reason));
  }
  delete(): Promise<boolean> {
    return Promise.reject(new Error(this.reason));
  }
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

/** The store's name in a sentence. */
export function storeLabel(backend: SecretBackend): string {
  return backend === 'app' ? "the app's secret store" : backend === 'keyring' ? 'the OS keychain' : 'no secret store';
}
