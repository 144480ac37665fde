/**
 * `convert` to a server that speaks MCP 2026-07-28 (see "Two eras of MCP" in
 * docs/ARCHITECTURE.md). The pipe of convertMode.ts cannot serve it: a 2025 client's
 * `initialize` has no counterpart there, and every request needs the `_meta` envelope. So a
 * modern remote is served like a one-server stdio aggregation in that server's own scope
 * (names unprefixed, its capabilities, instructions and serverInfo in the `initialize`
 * answer): the hub does the era work (envelope, discover, listen, input rounds) for a client
 * of either era. The era is probed once (`server/discover`, as for a remote entry) unless
 * the entry's `protocol` says; undefined means "not modern: use the pipe".
 */
import { Hub } from '../hub/hub.js';
import type { CliOptions } from '../cli/cliArgs.js';
import { parseConfig } from '../config/config.js';
import type { ToolFilter } from '../config/toolFilter.js';
import { errorText, type Logger } from '../common/logger.js';
import { redactUrl } from '../config/redact.js';
import { probeHttpEra } from '../upstream/era/httpEraProbe.js';
import { PROXY_ENVELOPE } from '../upstream/era/eraConnect.js';
import { PROBE_TIMEOUT_MS } from '../upstream/transportProbe.js';
import { serveHubOverStdio } from './hubOverStdio.js';

export interface ModernTarget {
  id: string;
  url: string;
  kind: 'auto' | 'http' | 'sse';
  headers: Record<string, string>;
  filter: ToolFilter;
  protocol?: string;
  /** The entry's clientCapabilities flags (a `--url` convert has none). */
  clientCapabilities?: Record<string, boolean | undefined>;
}

export async function runModernConvert(opts: CliOptions, target: ModernTarget, logger: Logger): Promise<number | undefined> {
  if (target.kind === 'sse' || target.protocol === '2025-11-25') return undefined;
  const log = logger.child('convert');
  if (target.protocol !== '2026-07-28') {
    const era = await probeHttpEra(target.url, target.headers, PROXY_ENVELOPE, { timeoutMs: PROBE_TIMEOUT_MS, logger: log }).catch((err: Error) => {
      log.debug(`era probe failed (${errorText(err)}); using the 2025 pipe`);
      return 'legacy' as const;
    });
    if (era === 'legacy') return undefined;
  }
  log.info(`exposing ${redactUrl(target.url)} (MCP 2026-07-28, streamable HTTP) over stdio`);
  const config = parseConfig(
    {
      mcpServers: {
        [target.id]: { url: target.url, headers: target.headers, type: 'http', protocol: '2026-07-28', clientCapabilities: target.clientCapabilities },
      },
    },
    { env: {} },
  );
  config.servers[0]!.toolFilter = target.filter;
  const hub = new Hub(config, logger, { drainOnEofMs: opts.drainTimeoutMs, maxMessageBytes: opts.maxMessageBytes });
  return serveHubOverStdio(hub, opts, logger, { serverId: target.id });
}
