/**
 * The key of the app's encrypted sign-in token store: 32 random bytes, kept in
 * `<userData>/oauth-store.key` encrypted with Electron's safeStorage (the OS keychain,
 * DPAPI or libsecret), handed to the bridge in `QIMING_OAUTH_KEY`. Where safeStorage cannot
 * encrypt (no keyring), or on Linux encrypts only under its built-in password (the
 * `basic_text` backend, which any program can undo), there is no key: the tokens stay in
 * plain 0600 files and the log says so. `safe` is Electron's safeStorage in the app, a fake
 * in tests.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../../proxy/index.js';
import type { RuntimeLogger } from '../logs/runtimeLogger.js';

/** Where the bridge keeps sign-in tokens, and the variable that carries the store's key to it. */
export { OAUTH_DIR_ENV, OAUTH_KEY_ENV } from '../../proxy/index.js';

export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(data: Buffer): string;
  /** Electron has it on Linux only: the backend in use (`basic_text` is no keyring at all). */
  getSelectedStorageBackend?(): string;
}

export function oauthStoreKey(
  userDataDir: string,
  safe: SafeStorageLike,
  log: Pick<RuntimeLogger, 'warn'>,
): string | undefined {
  const noKeyring = !safe.isEncryptionAvailable()
    ? 'safeStorage cannot encrypt here'
    : safe.getSelectedStorageBackend?.() === 'basic_text'
      ? 'safeStorage has no keyring here (basic_text)'
      : undefined;
  if (noKeyring) {
    log.warn(`${noKeyring}: sign-in tokens are kept in plain files readable only by you (mode 0600)`);
    return undefined;
  }
  const file = join(userDataDir, 'oauth-store.key');
  try {
    const key = safe.decryptString(readFileSync(file));
    if (Buffer.from(key, 'base64').length === 32) return key;
  } catch {
    // none yet, or unreadable (another user account's keychain): make a new one
  }
  const key = randomBytes(32).toString('base64');
  writeAtomic(file, safe.encryptString(key), 0o600);
  return key;
}
