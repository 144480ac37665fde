/**
 * The app's secret store, and what its bridge needs to use the same one. The values live in
 * one AES-256-GCM file under the key `oauthStoreKey` keeps in Electron's safeStorage; the
 * bridge gets that key in its environment (never argv) with `QIMING_SECRET_STORE=app`, and
 * reads `${secret:...}` values itself, at each start and reload. Without safeStorage there is
 * no key and no store: the bridge and the panel say so, and values stay in the config file.
 */
import {
  aesCodec,
  AppSecretStore,
  defaultSecretsFile,
  NO_SAFE_STORAGE,
  NoSecretStore,
  OAUTH_KEY_ENV,
  SECRET_STORE_ENV,
  type SecretStore,
} from '../../proxy/index.js';

/** The bridge's environment for the app's store: the key (when there is one) and the store's name. */
export function appSecretEnv(key: string | undefined): Record<string, string> {
  return { [SECRET_STORE_ENV]: 'app', ...(key ? { [OAUTH_KEY_ENV]: key } : {}) };
}

/** The app's store, for the panel's edits in the main process; `env` names the folder (`QIMING_OAUTH_DIR`, `QIMING_SECRETS_FILE`). */
export function appSecretStore(key: string | undefined, env: NodeJS.ProcessEnv = process.env): SecretStore {
  return key
    ? new AppSecretStore(defaultSecretsFile(env), aesCodec(Buffer.from(key, 'base64')))
    : new NoSecretStore(NO_SAFE_STORAGE);
}
