/** The store where there is none: every use says why (a sentence safe to show). */
import type { SecretAvailability, SecretStore } from './secretStore.js';

/** Why the app has no store: its safeStorage cannot encrypt (src/main/config/oauthStoreKey.ts found no key). */
export const NO_SAFE_STORAGE = "the app's safeStorage cannot encrypt here (no OS keychain)";

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
