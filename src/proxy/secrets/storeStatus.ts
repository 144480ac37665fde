/**
 * What the status says of the secret store, once something opened it (a `${secret:...}` at
 * launch, the panel's config read): a leaf the status feed reads without loading the store.
 */
import type { SecretStoreStatus } from '../../shared/status.js';

let known: SecretStoreStatus | undefined;
const listeners = new Set<() => void>();

/** Records the store's state (openSecretStore.ts) and tells the status feed. */
export function noteSecretStore(state: SecretStoreStatus): void {
  if (known && known.available === state.available && known.reason === state.reason && known.backend === state.backend)
    return;
  known = state;
  for (const cb of listeners) cb();
}

/** The store's state, or undefined while nothing has needed it. */
export function knownSecretStore(): SecretStoreStatus | undefined {
  return known;
}

/** Calls `cb` at each change; the function that stops it. */
export function onSecretStoreChange(cb: () => void): () => void {
  listeners.add(cb);
  return () => listeners.delete(cb);
}
