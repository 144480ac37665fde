/**
 * Command-line parsing for `qiming-mcp-stdio-proxy`. Every bad argument is a `UsageError`
 * (the CLI prints it with the usage text on stderr and exits 2).
 */
import { parseArgs as parseCommandLine, type ParseArgsConfig } from 'node:util';
import { MAX_TIMEOUT_MS } from '../common/deadline.js';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type Mode = 'stdio' | 'convert' | 'proxy' | 'help' | 'version';

export interface CliOptions {
  mode: Mode;
  url?: string;
  config?: string;
  configFile?: string;
  name?: string;
  port?: number;
  host: string;
  allowNonLoopback: boolean;
  tokenFile?: string;
  transport?: 'auto' | 'http' | 'sse' | 'stdio';
  headers: Record<string, string>;
  allowTools?: string[];
  denyTools?: string[];
  idleTimeoutMs?: number;
  watchdog: boolean;
  watchdogIntervalMs?: number;
  parentPid?: number;
  readyTimeoutMs?: number;
  maxMessageBytes?: number;
  bodyTimeoutMs?: number;
  pingIntervalMs?: number;
  pingTimeoutMs?: number;
  toolNaming?: 'prefixed' | 'original';
  logLevel?: string;
  shutdownTimeoutMs?: number;
  drainTimeoutMs?: number;
  /** `proxy` mode: follow the config file and apply each change (as SIGHUP does). */
  watch?: boolean;
}

type Kind = 'string' | 'int' | 'bool' | 'list';

const FLAGS: Record<string, { key: keyof CliOptions | 'header'; kind: Kind; modes?: Mode[] }> = {
  '--config': { key: 'config', kind: 'string' },
  '-c': { key: 'config', kind: 'string' },
  '--config-file': { key: 'configFile', kind: 'string' },
  '--name': { key: 'name', kind: 'string', modes: ['convert'] },
  '-n': { key: 'name', kind: 'string', modes: ['convert'] },
  '--port': { key: 'port', kind: 'int', modes: ['proxy', 'stdio'] },
  '-p': { key: 'port', kind: 'int', modes: ['proxy', 'stdio'] },
  '--host': { key: 'host', kind: 'string', modes: ['proxy', 'stdio'] },
  '--dangerously-allow-non-loopback': { key: 'allowNonLoopback', kind: 'bool', modes: ['proxy', 'stdio'] },
  '--token-file': { key: 'tokenFile', kind: 'string', modes: ['proxy', 'stdio'] },
  '--transport': { key: 'transport', kind: 'string' },
  '--protocol': { key: 'transport', kind: 'string', modes: ['convert'] },
  '--header': { key: 'header', kind: 'string', modes: ['convert'] },
  '-H': { key: 'header', kind: 'string', modes: ['convert'] },
  '--allow-tools': { key: 'allowTools', kind: 'list', modes: ['stdio', 'convert'] },
  '--deny-tools': { key: 'denyTools', kind: 'list', modes: ['stdio', 'convert'] },
  '--idle-timeout': { key: 'idleTimeoutMs', kind: 'int' },
  '--no-watchdog': { key: 'watchdog', kind: 'bool' },
  '--watchdog-interval': { key: 'watchdogIntervalMs', kind: 'int' },
  '--parent-pid': { key: 'parentPid', kind: 'int' },
  '--ready-timeout': { key: 'readyTimeoutMs', kind: 'int' },
  '--max-message-bytes': { key: 'maxMessageBytes', kind: 'int' },
  '--body-timeout': { key: 'bodyTimeoutMs', kind: 'int', modes: ['proxy', 'stdio'] },
  '--ping-interval': { key: 'pingIntervalMs', kind: 'int', modes: ['convert'] },
  '--ping-timeout': { key: 'pingTimeoutMs', kind: 'int', modes: ['convert'] },
  '--tool-naming': { key: 'toolNaming', kind: 'string', modes: ['stdio', 'proxy'] },
  '--log-level': { key: 'logLevel', kind: 'string' },
  '--shutdown-timeout': { key: 'shutdownTimeoutMs', kind: 'int' },
  '--drain-timeout': { key: 'drainTimeoutMs', kind: 'int', modes: ['stdio'] },
  '--watch': { key: 'watch', kind: 'bool', modes: ['proxy'] },
};

const TRANSPORTS: Record<Mode, string[]> = {
  convert: ['auto', 'http', 'sse', 'stream', 'streamable-http'],
  stdio: ['stdio', 'http'],
  proxy: ['http'],
  help: [],
  version: [],
};

/**
 * `node:util`'s parseArgs options derived from FLAGS: every long flag, each short one as the
 * `short` of the long flag with the same key, `--header` repeatable. Built once, on first use.
 */
let tokenizerOptions: ParseArgsConfig['options'] | undefined;
function tokenizer(): ParseArgsConfig['options'] {
  if (tokenizerOptions) return tokenizerOptions;
  const out: NonNullable<ParseArgsConfig['options']> = {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
  };
  for (const [flag, spec] of Object.entries(FLAGS)) {
    if (flag.startsWith('--'))
      out[flag.slice(2)] = { type: spec.kind === 'bool' ? 'boolean' : 'string', multiple: spec.key === 'header' };
  }
  for (const [flag, spec] of Object.entries(FLAGS)) {
    if (flag.startsWith('--')) continue;
    const long = Object.keys(FLAGS).find((f) => f.startsWith('--') && FLAGS[f]!.key === spec.key)!;
    out[long.slice(2)]!.short = flag.slice(1);
  }
  return (tokenizerOptions = out);
}

export function parseArgs(argv: string[]): CliOptions {
  const opts: CliOptions = { mode: 'stdio', host: '127.0.0.1', allowNonLoopback: false, headers: {}, watchdog: true };
  const args = [...argv];
  if (args[0] === 'convert' || args[0] === 'proxy') opts.mode = args.shift() as Mode;
  else if (args[0] !== undefined && !args[0].startsWith('-'))
    throw new UsageError(`unknown mode "${args[0]}" (modes: convert, proxy, or none for stdio aggregation)`);
  const positional: string[] = [];
  // Node splits the line (`--flag=value`, `-cVALUE`, short groups, `--`) without judging it
  // (strict: false); every judgement, and its message, is ours, in argument order.
  const { tokens } = parseCommandLine({
    args,
    options: tokenizer(),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positional.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') throw new UsageError('unknown option --');
    const flag = token.rawName;
    if (token.name === 'help') return { ...opts, mode: 'help' };
    if (token.name === 'version') return { ...opts, mode: 'version' };
    const spec = FLAGS[flag];
    if (!spec) throw new UsageError(`unknown option ${flag}`);
    if (spec.modes && !spec.modes.includes(opts.mode))
      throw new UsageError(
        `option ${flag} does not apply to ${opts.mode === 'stdio' ? 'stdio aggregation' : opts.mode} mode`,
      );
    if (spec.kind === 'bool') {
      if (token.value !== undefined) throw new UsageError(`option ${flag} takes no value, got "${token.value}"`);
      (opts as unknown as Record<string, unknown>)[spec.key] = flag !== '--no-watchdog';
      continue;
    }
    const value = token.value;
    // `--config --idle-timeout 5` forgot the config: say so rather than read a flag as a value
    // (Node's own strict mode calls that "ambiguous" and points at `--config=-XYZ`).
    if (value === undefined || (!token.inlineValue && isOption(value)))
      throw new UsageError(`option ${flag} needs a value`);
    if (spec.key === 'header') {
      const colon = value.indexOf(':');
      if (colon <= 0) throw new UsageError(`option ${flag} takes 'Name: value', got a value without a colon`);
      opts.headers[value.slice(0, colon).trim()] = value.slice(colon + 1).trim();
    } else if (spec.kind === 'int') {
      if (!/^\d+$/.test(value))
        throw new UsageError(`option ${flag} takes a non-negative whole number, got "${value}"`);
      const n = Number(value);
      // Beyond MAX_TIMEOUT_MS a Node timer fires after 1 ms instead: --idle-timeout would exit at once.
      const max =
        spec.key === 'port' || spec.key === 'parentPid' || spec.key === 'maxMessageBytes'
          ? Number.MAX_SAFE_INTEGER
          : MAX_TIMEOUT_MS;
      if (!Number.isSafeInteger(n) || n > max)
        throw new UsageError(`option ${flag}: ${value} is too large (at most ${max})`);
      (opts as unknown as Record<string, unknown>)[spec.key] = n;
    } else if (spec.kind === 'list') {
      const list = value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      (opts as unknown as Record<string, unknown>)[spec.key] = list;
    } else {
      if (flag === '--protocol' && !PROTOCOLS.includes(value))
        throw new UsageError(`option --protocol takes ${PROTOCOLS.join(' or ')}, got "${value}"`);
      (opts as unknown as Record<string, unknown>)[spec.key] = value;
    }
  }
  return validate(opts, positional);
}

/** `--protocol` is the seed's name for the transport of convert: `stream` is streamable HTTP. */
const PROTOCOLS = ['sse', 'stream'];

/** Whether an argument is one of our options (so it cannot be another option's value). */
function isOption(arg: string): boolean {
  const name = arg.startsWith('--') && arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
  return name in FLAGS || ['--help', '-h', '--version', '-v'].includes(name);
}

function validate(opts: CliOptions, positional: string[]): CliOptions {
  if (opts.mode === 'convert') {
    if (positional.length > 1) throw new UsageError(`convert takes one URL, got ${positional.length}`);
    opts.url = positional[0];
    if (!opts.url && !opts.config && !opts.configFile)
      throw new UsageError('convert needs a URL (or --config with --name)');
    if (opts.url && !/^https?:\/\//i.test(opts.url))
      throw new UsageError(`convert needs an http(s) URL, got "${opts.url}"`);
  } else if (positional.length) {
    throw new UsageError(`unexpected argument "${positional[0]}"`);
  }
  if (opts.config !== undefined && opts.configFile !== undefined)
    throw new UsageError('give either --config or --config-file, not both');
  // proxy mode without a config runs the app's default one (modes/defaultBridgeConfig.ts).
  if (opts.mode === 'stdio' && opts.config === undefined && opts.configFile === undefined) {
    throw new UsageError('stdio aggregation mode needs --config <json|path> or --config-file <path>');
  }
  if (opts.watch && opts.config?.trim().startsWith('{'))
    throw new UsageError('--watch needs a config file, not inline JSON');
  if (opts.mode === 'proxy' && opts.port === undefined)
    throw new UsageError('proxy mode needs --port <n> (0 picks a free port)');
  if (opts.port !== undefined && opts.port > 65535) throw new UsageError(`--port must be 0..65535, got ${opts.port}`);
  if (opts.transport !== undefined) {
    if (!TRANSPORTS[opts.mode].includes(opts.transport)) {
      throw new UsageError(
        `--transport ${opts.transport} is not valid here (expected ${TRANSPORTS[opts.mode].join(', ')})`,
      );
    }
    const t = opts.transport as string;
    if (t === 'stream' || t === 'streamable-http') opts.transport = 'http';
  }
  if (opts.toolNaming !== undefined && opts.toolNaming !== 'prefixed' && opts.toolNaming !== 'original') {
    throw new UsageError(`--tool-naming takes prefixed or original, got "${opts.toolNaming}"`);
  }
  if (opts.logLevel !== undefined && !['debug', 'info', 'warn', 'error'].includes(opts.logLevel)) {
    throw new UsageError(`--log-level takes debug, info, warn or error, got "${opts.logLevel}"`);
  }
  if (opts.mode === 'stdio' && opts.transport !== 'http') {
    const httpOnly = [
      opts.port !== undefined && '--port',
      opts.tokenFile !== undefined && '--token-file',
      opts.allowNonLoopback && '--dangerously-allow-non-loopback',
      opts.host !== '127.0.0.1' && '--host',
    ].filter(Boolean);
    if (httpOnly.length)
      throw new UsageError(
        `${httpOnly.join(', ')} ${httpOnly.length === 1 ? 'applies' : 'apply'} only with --transport http (or in proxy mode)`,
      );
  }
  if (opts.pingTimeoutMs === 0)
    throw new UsageError('--ping-timeout must be at least 1 ms (use --ping-interval 0 to turn the heartbeat off)');
  if (opts.parentPid === 0) throw new UsageError('--parent-pid must be a process id (at least 1)');
  if (opts.watchdogIntervalMs === 0)
    throw new UsageError('--watchdog-interval must be at least 1 ms (use --no-watchdog to turn it off)');
  if (opts.maxMessageBytes === 0) throw new UsageError('--max-message-bytes must be at least 1');
  return opts;
}

export const USAGE = `Usage:
  qiming-mcp-stdio-proxy --config <json|path> [options]      stdio aggregation of every configured server
  qiming-mcp-stdio-proxy convert <url> [options]             one remote server exposed over stdio
  qiming-mcp-stdio-proxy proxy --port <n|0> [--config <json|path>] [options]
                                                             the persistent bridge over loopback HTTP

Config: {"mcpServers": {"<id>": {"command": ..., "args": [...], "env": {...}} | {"url": ..., "type": "http"|"sse"}}}
  --config <json|path>       inline JSON or a file path      --config-file <path>   a file path
Common options:
  --idle-timeout <ms>        stdio modes: exit after this long without input (default 600000, 0 disables);
                             proxy and --transport http: close HTTP sessions idle this long (default 1800000)
  --no-watchdog              do not exit when the parent process dies (stdio modes watch it by default)
  --watchdog-interval <ms>   parent check interval (default 2000)      --parent-pid <pid>  pid to watch
  --max-message-bytes <n>    largest message from a client (default 10485760); a server's may be twice that
  --log-level <level>        debug|info|warn|error (or MCP_PROXY_LOG_LEVEL); logs go to stderr
                             and to $MCP_PROXY_LOG_FILE when set, never to stdout
Stdio aggregation:
  --ready-timeout <ms>       how long the first list waits for servers still starting (default 30000)
  --tool-naming <mode>       prefixed (serverId__tool, default) or original (raw names where unique)
  --drain-timeout <ms>       after stdin EOF, how long received requests may still take (default 10000,
                             or longer while servers are in their first start within --ready-timeout)
  --allow-tools a,b  --deny-tools a,b   filters applied after each server's own
  --transport http --port <n>   serve the aggregate over loopback HTTP instead of stdio
Convert:
  --transport auto|http|sse  (alias --protocol sse|stream; default auto: streamable HTTP, SSE fallback)
  -H, --header 'Name: value' (repeatable)     -n, --name <id>  pick one entry of --config
  --ping-interval <ms>  --ping-timeout <ms>   heartbeat (default 30000 / 5000)
Proxy (bridge):
  --port <n|0>  --host 127.0.0.1  --token-file <path> (or MCP_BRIDGE_TOKEN; default: random per launch)
  --shutdown-timeout <ms>    bound on a graceful stop (default 5000)
  without --config: the app's default config (bundled memory and filesystem servers), created on
                             first run as mcp.json in the user's data folder and used from then on
  SIGHUP                     re-read the config and apply only the difference (added servers start,
                             removed ones stop, changed ones restart, the others keep running)
  --watch                    do the same whenever the config file changes
  --body-timeout <ms>        HTTP: a request's head, then its body, must arrive within this (default 30000; 408)
  --help, --version
`;
