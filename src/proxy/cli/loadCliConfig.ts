/** The config named on the command line, with command-line overrides applied. */
import { loadConfig, type ProxyConfig } from '../config/config.js';
import type { SecretLookup } from '../config/envExpand.js';
import type { Logger } from '../common/logger.js';
import type { SecretStoreStatus } from '../../shared/status.js';
import type { CliOptions } from './cliArgs.js';
import { applyCliToolFilters } from './cliToolFilter.js';

/**
 * Loads `--config <json|path>` or `--config-file <path>` and applies `--ready-timeout`,
 * `--tool-naming` and, except in convert mode (which filters the one server itself, by its
 * own tool names), `--allow-tools` / `--deny-tools`. Entries that cannot be read come back
 * in `invalid` (each mode decides what to do with them). `secret`: what `${secret:NAME}`
 * resolves from (none: such an entry is invalid, naming the secret).
 * @throws ConfigError for a missing file, bad JSON or an unusable top level.
 */
export function loadCliConfig(opts: CliOptions, secret?: SecretLookup): ProxyConfig {
  const input = opts.configFile ?? opts.config;
  if (input === undefined) throw new Error('no config given');
  // --config-file always names a file, even one whose path starts with "{".
  const config =
    opts.configFile !== undefined
      ? loadConfig(opts.configFile.startsWith('{') ? `./${opts.configFile}` : opts.configFile, { secret })
      : loadConfig(input, { secret });
  const withOverrides: ProxyConfig = {
    ...config,
    ...(opts.readyTimeoutMs !== undefined ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
    ...(opts.toolNaming !== undefined ? { toolNaming: opts.toolNaming } : {}),
  };
  return opts.mode === 'convert' ? withOverrides : applyCliToolFilters(withOverrides, opts.allowTools, opts.denyTools);
}

/**
 * {@link loadCliConfig} for a config about to run: its `${secret:NAME}`s fetched from the
 * secret store first (secrets/launchSecrets.ts, loaded only when there are some).
 */
export async function loadRunConfig(
  opts: CliOptions,
  logger: Logger,
  onStore?: (state: SecretStoreStatus) => void,
): Promise<ProxyConfig> {
  const wanted: string[] = [];
  const first = loadCliConfig(opts, (name) => (wanted.push(name), { value: '' }));
  if (!wanted.length) return first;
  const load = (lookup: SecretLookup) => loadCliConfig(opts, lookup);
  return (await import('../secrets/launchSecrets.js')).loadWithSecrets(load, wanted, logger, onStore);
}
