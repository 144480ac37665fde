/** The config named on the command line, with command-line overrides applied. */
import { loadConfig, type ProxyConfig } from '../config.js';
import type { CliOptions } from '../cli/cliArgs.js';

export function loadCliConfig(opts: CliOptions): ProxyConfig {
  const input = opts.configFile ?? opts.config;
  if (input === undefined) throw new Error('no config given');
  // --config-file always names a file, even one whose path starts with "{".
  const config = opts.configFile !== undefined ? loadConfig(opts.configFile.startsWith('{') ? `./${opts.configFile}` : opts.configFile) : loadConfig(input);
  return {
    ...config,
    ...(opts.readyTimeoutMs !== undefined ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
    ...(opts.toolNaming !== undefined ? { toolNaming: opts.toolNaming } : {}),
  };
}
