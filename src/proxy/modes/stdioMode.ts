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
import { pinDefault, pinFolder } from '../pinning/pinFolder.js';
import { CALLER_KEY_ENV } from '../common/envNames.js';

export async function runStdioMode(opts: CliOptions, logger: Logger): Promise<number> {
  const config = await loadRunConfig(opts, logger);
  // --allow-tools / --deny-tools are already merged into each entry by loadCliConfig.
  const hub = new Hub(config, logger, {
    drainOnEofMs: opts.drainTimeoutMs,
    maxMessageBytes: opts.maxMessageBytes,
    pinDir: pinFolder(),
    pinDefault: pinDefault(),
    // Set by the app for an agent session's proxy (src/main/acp/acp.ts).
    callerKey: process.env[CALLER_KEY_ENV] || undefined,
  });
  // A server that wants a sign-in opens the browser by itself (there is no panel here).
  installHubOAuth(hub, { logger, autoSignIn: true });
  const enabled = config.servers.filter((s) => !s.disabled).length;
  logger.info(`stdio aggregation of ${enabled} server(s): ${config.servers.map((s) => s.id).join(', ') || '(none)'}`);
  for (const e of config.invalid ?? []) logger.error(`not started: ${e.issues.join('; ')}`);
  if (config.servers.some((s) => s.kind === 'remote' && s.type === 'bridge')) reportLoadedTools(hub, logger);
  return serveHubOverStdio(hub, opts, logger);
}

/** An agent's proxy in the app's chain: the bridge's status shows which tools its session loaded (economy/loadedReport.ts). */
function reportLoadedTools(hub: Hub, logger: Logger): void {
  let report: Promise<{ changed(): void }> | undefined;
  hub.onstatus = () => {
    if (![...hub.sessions].some((s) => s.found?.size)) return;
    report ??= import('../hub/economy/loadedReport.js').then((m) => new m.LoadedReport(hub, logger));
    void report.then((r) => r.changed());
  };
}
