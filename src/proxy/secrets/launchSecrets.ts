/**
 * The values of the `${secret:NAME}` references a config makes, fetched from the store before
 * the config is expanded (expansion is synchronous; the store is not). A name the store does
 * not hold, or a store that cannot be used, gives a sentence naming the secret, which fails
 * the entries that use it (and only them).
 */
import type { SecretLookup } from '../config/envExpand.js';
import type { Logger } from '../common/logger.js';
import { openSecretStore, secretStoreState, storeLabel } from './openSecretStore.js';
import type { SecretStore } from './secretStore.js';
import type { SecretStoreStatus } from '../../shared/status.js';
import type { ProxyConfig } from '../config/config.js';

export interface FetchedSecrets {
  lookup: SecretLookup;
  /** The values found (for the log's mask). */
  values: string[];
  state: SecretStoreStatus;
}

/** The config `load` reads, with the `wanted` secrets fetched (cli/loadCliConfig.ts:loadRunConfig), their values added to the log's mask. */
export async function loadWithSecrets(
  load: (lookup: SecretLookup) => ProxyConfig,
  wanted: string[],
  logger: Logger,
  onStore?: (state: SecretStoreStatus) => void,
): Promise<ProxyConfig> {
  const { lookup, values, state } = await fetchSecrets(wanted, undefined, logger.child('secrets'));
  logger.secrets.add(values);
  onStore?.(state);
  return load(lookup);
}

export async function fetchSecrets(
  names: Iterable<string>,
  store: SecretStore = openSecretStore(),
  log?: Pick<Logger, 'warn'>,
): Promise<FetchedSecrets> {
  const ok = await store.available();
  const state = await secretStoreState(store);
  const found = new Map<string, string>();
  const failed = new Map<string, string>();
  if (!ok.ok) {
    log?.warn(`secrets: ${ok.reason}; the servers whose config uses \${secret:...} cannot start`);
  } else {
    await Promise.all(
      [...new Set(names)].map(async (name) => {
        try {
          const v = await store.get(name);
          if (v !== undefined) found.set(name, v);
        } catch (err) {
          failed.set(name, (err as Error).message.split('\n')[0].slice(0, 200));
        }
      }),
    );
  }
  const where = storeLabel(store.backend);
  const lookup: SecretLookup = (name) => {
    const value = found.get(name);
    if (value !== undefined) return { value };
    if (!ok.ok) return { error: `but ${ok.reason}` };
    const err = failed.get(name);
    return { error: err ? `which ${where} could not read (${err})` : `which is not in ${where}` };
  };
  return { lookup, values: [...found.values()], state };
}
