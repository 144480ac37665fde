// src/proxy/config/: what the user wrote, checked and expanded, and what of it must never be shown.
/**
 * The proxy's config: `{"mcpServers": {"<id>": entry}, ...options}`, the shape of
 * claude_desktop_config.json and Cursor's mcp.json, validated with zod and normalised into
 * {@link ProxyConfig}.
 *
 * Error messages name the server id and the field path and never quote a value: env values,
 * headers, tokens and urls may be secrets, and messages end up in logs and status panels.
 * All problems of a config are reported together in one {@link ConfigError}.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as z from 'zod/mini';
import { capabilityFlags, DEFAULT_READY_TIMEOUT_MS, formatPath, isPlainObject, msMap, ms, oneOf, must, parseEntry } from './configEntry.js';
import type { ProxyConfig, ServerEntry } from './configTypes.js';
import { ConfigError } from './configError.js';
import { depthMessage, valueNestsDeeper } from './jsonDepth.js';

export { ConfigError } from './configError.js';
export type { ToolFilter } from './toolFilter.js';
export type { EntryCommon, StdioEntry, RemoteEntry, ServerEntry, ProxyConfig } from './configTypes.js';
export {
  DEFAULT_TIMEOUT_MS,
  DEFAULT_STDIO_CONNECTION_TIMEOUT_MS,
  DEFAULT_REMOTE_CONNECTION_TIMEOUT_MS,
  DEFAULT_READY_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  SERVER_ID_RE,
  formatPath,
} from './configEntry.js';

// The top level; entries are validated one by one in configEntry.ts.
const topSchema = z.looseObject(
  {
    mcpServers: z.record(z.string(), z.unknown(), { error: must('an object mapping server ids to server entries') }),
    toolNaming: z.optional(z.enum(['prefixed', 'original'], { error: oneOf(['prefixed', 'original']) })),
    readyTimeoutMs: z.optional(ms(1)),
    toolTimeouts: z.optional(msMap()),
    clientCapabilities: z.optional(capabilityFlags()),
  },
  { error: must('a JSON object') },
);

/**
 * Validates and normalises an already-parsed config object.
 * `${VAR}` references are expanded from `opts.env` (default `process.env`).
 * @throws ConfigError listing every problem found.
 */
export function parseConfig(raw: unknown, opts: { env?: NodeJS.ProcessEnv } = {}): ProxyConfig {
  const env = opts.env ?? process.env;
  // Before anything walks it: what is nested deeper than any config needs would overflow the stack later.
  if (valueNestsDeeper(raw)) throw new ConfigError([depthMessage('the config')]);
  const issues: string[] = [];
  const top = topSchema.safeParse(raw);
  if (!top.success) {
    for (const iss of top.error.issues) issues.push(`${formatPath(iss.path) || 'config'} ${iss.message}`);
  }
  // Entries are checked even when a top-level option is wrong, so one run reports everything.
  // Note: JS objects put integer-like keys ("1", "42") first; such ids lose their file order.
  const serversRaw = isPlainObject(raw) && isPlainObject(raw.mcpServers) ? raw.mcpServers : {};
  const servers: ServerEntry[] = [];
  for (const [id, value] of Object.entries(serversRaw)) {
    const entry = parseEntry(id, value, env, issues);
    if (entry) servers.push(entry);
  }
  const globalTimeouts = top.success ? { ...(top.data.toolTimeouts ?? {}) } : {};
  if ('' in globalTimeouts) issues.push('toolTimeouts must not have an empty tool pattern');
  if (issues.length > 0 || !top.success) throw new ConfigError(issues);
  const capabilityDefault = top.data.clientCapabilities;
  if (capabilityDefault) for (const s of servers) s.clientCapabilities = { ...capabilityDefault, ...s.clientCapabilities };
  return {
    servers,
    toolNaming: top.data.toolNaming ?? 'prefixed',
    readyTimeoutMs: top.data.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
    toolTimeouts: globalTimeouts,
  };
}

/** Describes a JSON.parse failure without quoting the text (newer V8 messages embed a snippet). */
function jsonErrorText(err: unknown, text: string): string {
  const msg = err instanceof Error ? err.message : String(err);
  const pos = /at position (\d+)/.exec(msg);
  if (pos) {
    const before = text.slice(0, Number(pos[1]));
    const line = before.split('\n').length;
    return `syntax error at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
  }
  if (/end of JSON input/i.test(msg)) return 'unexpected end of input';
  const tok = /^Unexpected token '?(.)/.exec(msg);
  return tok ? `unexpected character "${tok[1]}"` : 'syntax error';
}

/**
 * Loads a config from inline JSON or a file. After trimming, a string starting with `{` is
 * inline JSON; anything else is a file path, resolved against `opts.cwd` (default
 * `process.cwd()`).
 * @throws ConfigError for a missing/unreadable file, bad JSON, or an invalid config.
 */
export function loadConfig(input: string, opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ProxyConfig {
  const trimmed = input.trim();
  if (trimmed === '') throw new ConfigError(['config is empty: pass inline JSON ({"mcpServers": {...}}) or a path to a JSON file']);
  let text = trimmed;
  let source = 'inline JSON';
  if (!trimmed.startsWith('{')) {
    const path = resolve(opts.cwd ?? process.cwd(), trimmed);
    source = path;
    try {
      text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new ConfigError([`config file not found: ${path}`]);
      if (code === 'EISDIR') throw new ConfigError([`config path is a directory, not a file: ${path}`]);
      throw new ConfigError([`cannot read config file ${path}: ${code ?? (err as Error).message}`]);
    }
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError([`${source} is not valid JSON: ${jsonErrorText(err, text)}`]);
  }
  try {
    return parseConfig(raw, opts);
  } catch (err) {
    if (err instanceof ConfigError && source !== 'inline JSON') throw new ConfigError(err.issues, source);
    throw err;
  }
}
