// src/proxy/modes/: the three modes (stdio aggregation, convert, the bridge), and nothing else.
/**
 * Stdio aggregation: every configured server merged into one MCP server on stdin/stdout.
 * Upstreams start in parallel; the first list waits (bounded) for those still starting.
 * A config entry that cannot be read is logged with its reason and left out; the others serve.
 * The process ends on stdin EOF (after answering what was already received), on a signal,
 * on idle timeout, or when its parent dies.
 */
import { Hub } from '../hub/hub.js';
import { loadRunConfig } from '../cli/loadCliConfig.js';
import type { CliOptions } from '../cli/cliArgs.js';
import type { Logger } from '../common/logger.js';
import { serveHubOverStdio } from './hubOverStdio.js';
import { installHubOAuth } from '../oauth/oauthRegistry.js';

export async function runStdioMode(opts: CliOptions, logger: Logger): Promise<number> {
  const config = await loadRunConfig(opts, logger);
  // --allow-tools / --deny-tools are already merged into each entry by loadCliConfig.
  const hub = new Hub(config, logger, { drainOnEofMs: opts.drainTimeoutMs, maxMessageBytes: opts.maxMessageBytes });
  // A server that wants a sign-in opens the browser by itself (there is no panel here).
  installHubOAuth(hub, { logger, autoSignIn: true });
  const enabled = config.servers.filter((s) => !s.disabled).length;
  logger.info(`stdio aggregation of ${enabled} server(s): ${config.servers.map((s) => s.id).join(', ') || '(none)'}`);
  for (const e of config.invalid ?? []) logger.error(`not started: ${e.issues.join('; ')}`);
  return serveHubOverStdio(hub, opts, logger);
}
