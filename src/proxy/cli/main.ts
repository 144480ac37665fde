// src/proxy/cli/: turn a command line into one running mode and end it cleanly.
/**
 * Entry point of `qiming-mcp-stdio-proxy`. Parses the command line and runs one mode.
 * Usage errors print the usage on stderr and exit 2; config errors exit 2 with the list
 * of problems; nothing but protocol bytes (and the bridge's one ready line) goes to stdout.
 */
import { parseArgs, UsageError, USAGE } from './cliArgs.js';
import { ConfigError } from '../config/configError.js';
import { Logger, errorText, type LogLevel } from '../common/logger.js';

declare const __QIMING_VERSION__: string | undefined;
const VERSION = typeof __QIMING_VERSION__ === 'string' ? __QIMING_VERSION__ : '0.0.0-dev';

/** ConfigError issues about the file itself rather than its content. */
const FILE_PROBLEM = /^(config file not found|config path is a directory|cannot read config file|config is empty)/;

function say(text: string): void {
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
}

export async function main(argv: string[]): Promise<number> {
  // Our stderr may have no reader (a client that closed the pipe it gave us): an EPIPE from
  // a log line must not crash the proxy. Logs still reach MCP_PROXY_LOG_FILE when set.
  process.stderr.on('error', () => {});
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      say(`qiming-mcp-stdio-proxy: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  if (opts.mode === 'help') {
    say(USAGE);
    return 0;
  }
  if (opts.mode === 'version') {
    say(VERSION);
    return 0;
  }
  const logger = Logger.create('proxy', opts.logLevel ? { level: opts.logLevel as LogLevel } : {});
  try {
    // Each mode is loaded when chosen, so start-up initialises only what that mode uses (the
    // bundle stays one file; esbuild defers the module bodies behind these imports).
    if (opts.mode === 'convert') return await (await import('../modes/convertMode.js')).runConvertMode(opts, logger);
    if (opts.mode === 'proxy' || opts.transport === 'http')
      return await (await import('../modes/bridgeMode.js')).runBridgeMode(opts, logger);
    return await (await import('../modes/stdioMode.js')).runStdioMode(opts, logger);
  } catch (err) {
    if (err instanceof ConfigError) {
      // A file that cannot be read is not an invalid config; say just what is wrong.
      const [first] = err.issues;
      say(`qiming-mcp-stdio-proxy: ${err.issues.length === 1 && FILE_PROBLEM.test(first) ? first : err.message}`);
      return 2;
    }
    if (err instanceof UsageError) {
      say(`qiming-mcp-stdio-proxy: ${err.message}`);
      return 2;
    }
    logger.error(`fatal: ${errorText(err)}`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    if (code !== 0) process.exit(code);
  },
  (err) => {
    say(`qiming-mcp-stdio-proxy: ${errorText(err)}`);
    process.exit(1);
  },
);
