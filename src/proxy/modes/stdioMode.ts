// src/proxy/modes/: the three modes (stdio aggregation, convert, the bridge), and nothing else.
/**
 * Stdio aggregation: every configured server merged into one MCP server on stdin/stdout.
 * Upstreams start in parallel; the first list waits (bounded) for those still starting.
 * The process ends on stdin EOF (after answering what was already received), on a signal,
 * on idle timeout, or when its parent dies.
 */
import { Hub } from '../hub/hub.js';
import { StdioServerTransport } from '../stdio/stdioServerTransport.js';
import { installLifecycle, lifecycleFlags } from '../cli/lifecycle.js';
import { loadCliConfig } from '../cli/loadCliConfig.js';
import type { CliOptions } from '../cli/cliArgs.js';
import { errorText, type Logger } from '../common/logger.js';
import { installHubOAuth } from '../oauth/oauthRegistry.js';

export async function runStdioMode(opts: CliOptions, logger: Logger): Promise<number> {
  const config = loadCliConfig(opts);
  // --allow-tools / --deny-tools are already merged into each entry by loadCliConfig.
  const hub = new Hub(config, logger, { drainOnEofMs: opts.drainTimeoutMs, maxMessageBytes: opts.maxMessageBytes });
  // A server that wants a sign-in opens the browser by itself (there is no panel here).
  installHubOAuth(hub, { logger, autoSignIn: true });
  const transport = new StdioServerTransport({ idleTimeoutMs: opts.idleTimeoutMs, maxMessageBytes: opts.maxMessageBytes, logger: logger.child('stdio') });
  const lifecycle = installLifecycle({
    logger,
    ...lifecycleFlags(opts),
    stop: async () => {
      await session.close();
      await hub.stop();
    },
  });
  const session = hub.connect(transport, {}, () => void lifecycle.shutdown('client closed the connection'));
  const enabled = config.servers.filter((s) => !s.disabled).length;
  logger.info(`stdio aggregation of ${enabled} server(s): ${config.servers.map((s) => s.id).join(', ') || '(none)'}`);
  hub.start().catch((err) => logger.error(`start failed: ${errorText(err)}`));
  await session.start();
  return lifecycle.done;
}
