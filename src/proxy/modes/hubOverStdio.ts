/**
 * One hub served to one client on stdin/stdout, for the modes that run a hub over stdio (the
 * stdio aggregation, and `convert` to a 2026-07-28 server): the session, the shutdown
 * sequence (session first, then the servers), the start of the servers in the background.
 */
import type { Hub } from '../hub/hub.js';
import type { SessionScope } from '../hub/sessionContracts.js';
import { StdioServerTransport } from '../stdio/stdioServerTransport.js';
import { installLifecycle, lifecycleFlags } from '../cli/lifecycle.js';
import type { CliOptions } from '../cli/cliArgs.js';
import { errorText, type Logger } from '../common/logger.js';

/** Resolves with the exit code once the process should end. */
export async function serveHubOverStdio(
  hub: Hub,
  opts: CliOptions,
  logger: Logger,
  scope: SessionScope = {},
): Promise<number> {
  const transport = new StdioServerTransport({
    idleTimeoutMs: opts.idleTimeoutMs,
    maxMessageBytes: opts.maxMessageBytes,
    logger: logger.child('stdio'),
  });
  const lifecycle = installLifecycle({
    logger,
    ...lifecycleFlags(opts),
    stop: async () => {
      await session.close();
      await hub.stop();
    },
  });
  const session = hub.connect(transport, scope, () => void lifecycle.shutdown('client closed the connection'));
  hub.start().catch((err) => logger.error(`start failed: ${errorText(err)}`));
  await session.start();
  return lifecycle.done;
}
