/** The config named on the command line, with command-line overrides applied. */
import { loadConfig, type ProxyConfig } from '../config/config.js';
import type { CliOptions } from './cliArgs.js';
import { applyCliToolFilters } from './cliToolFilter.js';

/**
 * Loads `--config <json|path>` or `--config-file <path>` and applies `--ready-timeout`,
 * `--tool-naming` and, except in convert mode (which filters the one server itself, by its
 * own tool names), `--allow-tools` / `--deny-tools`. Entries that cannot be read come back
 * in `invalid` (each mode decides what to do with them).
 * @throws ConfigError for a missing file, bad JSON or an unusable top level.
 */
export function loadCliConfig(opts: CliOptions): ProxyConfig {
  const input = opts.configFile ?? opts.config;
  if (input === undefined) throw new Error('no config given');
  // --config-file always names a file, even one whose path starts with "{".
  const config =
    opts.configFile !== undefined
      ? loadConfig(opts.configFile.startsWith('{') ? `./${opts.configFile}` : opts.configFile)
      : loadConfig(input);
  const withOverrides: ProxyConfig = {
    ...config,
    ...(opts.readyTimeoutMs !== undefined ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
    ...(opts.toolNaming !== undefined ? { toolNaming: opts.toolNaming } : {}),
  };
  return opts.mode === 'convert' ? withOverrides : applyCliToolFilters(withOverrides, opts.allowTools, opts.denyTools);
}
