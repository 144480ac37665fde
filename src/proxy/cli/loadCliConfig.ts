/** The config named on the command line, with command-line overrides applied. */
import { loadConfig, type ProxyConfig } from '../config/config.js';
import type { SecretLookup } from '../config/envExpand.js';
import type { Logger } from '../common/logger.js';
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
 * secret store first (the store's code is loaded only when there are some), their values
 * added to the log's mask.
 */
export async function loadRunConfig(opts: CliOptions, logger: Logger): Promise<ProxyConfig> {
  const wanted = new Set<string>();
  const first = loadCliConfig(opts, (name) => {
    wanted.add(name);
    return { value: '' };
  });
  if (wanted.size === 0) return first;
  const { fetchSecrets } = await import('../secrets/launchSecrets.js');
  const { lookup, values } = await fetchSecrets(wanted, undefined, logger.child('secrets'));
  logger.secrets.add(values);
  return loadCliConfig(opts, lookup);
}
