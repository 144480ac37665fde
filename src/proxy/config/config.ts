// src/proxy/config/: what the user wrote, checked and expanded, and what of it must never be shown.
/**
 * The proxy's config: `{"mcpServers": {"<id>": entry}, ...options}`, the shape of
 * claude_desktop_config.json and Cursor's mcp.json, or VS Code's `{"servers": {...},
 * "inputs": [...]}` (clientFormats.ts), as JSON with comments and trailing commas allowed
 * (jsonc.ts); validated with zod and normalised into {@link ProxyConfig}.
 *
 * What is fatal and what is not: a file that cannot be read, is not JSON, or whose top level
 * is wrong (not an object, no servers map, a bad top-level option) makes the whole config
 * unusable. A bad entry does not: {@link loadConfig} sets it aside in `invalid` with its
 * problems, and the other entries run. {@link parseConfig}, the check of an edit before it
 * is written, refuses any problem.
 *
 * Error messages name the server id and the field path and never quote a value: env values,
 * headers, tokens and urls may be secrets, and messages end up in logs and status panels.
 * All problems of a config are reported together in one {@link ConfigError}.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, resolve, sep } from 'node:path';
import { entryPresentation, formatPath, invalidEntry, isPlainObject, parseEntry } from './configEntry.js';
import type { InvalidEntry, ProxyConfig, ServerEntry } from './configTypes.js';
import { ConfigError } from './configError.js';
import { depthMessage, valueNestsDeeper } from './jsonDepth.js';
import { findServers } from './clientFormats.js';
import type { ClientVars, SecretLookup } from './envExpand.js';
import { jsoncToJson } from './jsonc.js';
import { approvalRule, approvalSettings, type ApprovalRule } from './approvalConfig.js';
import { applySandbox } from '../sandbox/sandboxConfig.js';
import { carriedOptions, HTTP_URL, topLevelSchema, type TopLevelValues } from './topLevelOptions.js';

export { ConfigError } from './configError.js';
export type { ToolFilter } from './toolFilter.js';
export type {
  EntryCommon,
  StdioEntry,
  RemoteEntry,
  ServerEntry,
  ProxyConfig,
  InvalidEntry,
  ToolExposureSetting,
} from './configTypes.js';
export {
  DEFAULT_TIMEOUT_MS,
  DEFAULT_STDIO_CONNECTION_TIMEOUT_MS,
  DEFAULT_REMOTE_CONNECTION_TIMEOUT_MS,
  DEFAULT_READY_TIMEOUT_MS,
  DEFAULT_TOOL_BUDGET_TOKENS,
  DEFAULT_MAX_RESULT_BYTES,
  MAX_TIMEOUT_MS,
  SERVER_ID_RE,
  formatPath,
} from './configEntry.js';

export interface ParseOptions {
  /** What `${VAR}`s expand from; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Other clients' `${userHome}`, `${workspaceFolder}`...; default {@link clientVarsFor} the current folder. */
  vars?: ClientVars;
  /** What `${secret:NAME}` resolves from (over any in `vars`); none: such a reference is unavailable. */
  secret?: SecretLookup;
}

/**
 * `${userHome}` is the home folder; `${workspaceFolder}` is the project the config belongs
 * to, as far as a file tells: for `<project>/.vscode/mcp.json` or `<project>/.cursor/mcp.json`
 * the project, for any other file its own folder, for inline JSON (`file` undefined) `cwd`.
 */
export function clientVarsFor(file: string | undefined, cwd: string = process.cwd()): ClientVars {
  const folder = file === undefined ? cwd : dirname(resolve(cwd, file));
  const workspaceFolder =
    file !== undefined && ['.vscode', '.cursor'].includes(basename(folder)) ? dirname(folder) : folder;
  return { userHome: homedir(), workspaceFolder, pathSeparator: sep };
}

/** The servers map of `raw`; a missing or malformed one is a top-level issue. */
function serversOf(raw: unknown, issues: string[]): Record<string, unknown> {
  if (!isPlainObject(raw)) return {};
  if (raw.mcpServers !== undefined && !isPlainObject(raw.mcpServers)) {
    issues.push('mcpServers must be an object mapping server ids to server entries');
    return {};
  }
  const found = findServers(raw);
  if (found) return found.servers;
  issues.push(
    raw.servers !== undefined
      ? 'servers must be an object mapping server ids to server entries'
      : 'mcpServers is required',
  );
  return {};
}

/** The checked config: top-level problems (fatal), and the entries read and set aside. */
function check(raw: unknown, opts: ParseOptions): { top: string[]; config: ProxyConfig } {
  const env = opts.env ?? process.env;
  // Before anything walks it: what is nested deeper than any config needs would overflow the stack later.
  if (valueNestsDeeper(raw)) throw new ConfigError([depthMessage('the config')]);
  const vars = { ...(opts.vars ?? clientVarsFor(undefined)), ...(opts.secret ? { secret: opts.secret } : {}) };
  const top: string[] = [];
  // The top level's options are checked by their rows' schemas (topLevelOptions.ts); the servers
  // map is found by clientFormats.ts, its entries validated one by one in configEntry.ts.
  const parsed = topLevelSchema.safeParse(raw);
  if (!parsed.success) {
    for (const iss of parsed.error.issues) top.push(`${formatPath(iss.path) || 'config'} ${iss.message}`);
  }
  // Entries are checked even when a top-level option is wrong, so one run reports everything.
  // Note: JS objects put integer-like keys ("1", "42") first; such ids lose their file order.
  const servers: ServerEntry[] = [];
  const invalid: InvalidEntry[] = [];
  const exposeAlways: string[] = [];
  const serverDescriptions: Record<string, string> = {};
  const approvals: Record<string, ApprovalRule> = {};
  for (const [id, value] of Object.entries(serversOf(raw, top))) {
    const issues: string[] = [];
    const entry = parseEntry(id, value, env, issues, vars);
    // An entry's approval rule lives beside it (config/approvalConfig.ts): a changed rule restarts no server.
    const rule = entryApproval(id, value, issues);
    const boxed = entry && applySandbox(entry, value, isPlainObject(raw) ? raw.sandbox : undefined, env, vars, issues);
    // parseEntry gives undefined only with issues.
    if (!entry || boxed === false || (rule === undefined && isPlainObject(value) && value.approval !== undefined)) {
      invalid.push(invalidEntry(id, value, issues));
      continue;
    }
    servers.push(entry);
    if (rule !== undefined) approvals[id] = rule;
    const shown = entryPresentation(value);
    if (shown.always) exposeAlways.push(id);
    if (shown.description !== undefined) serverDescriptions[id] = shown.description;
  }
  const options: TopLevelValues = parsed.success ? parsed.data : {};
  if (options.toolTimeouts && '' in options.toolTimeouts) top.push('toolTimeouts must not have an empty tool pattern');
  if (options.tracing?.endpoint !== undefined && !/^https?:\/\/\S+$/i.test(options.tracing.endpoint))
    top.push(`tracing.endpoint must be ${HTTP_URL}`);
  const approval = approvalSettings(
    { ...options, approval: isPlainObject(raw) ? raw.approval : undefined },
    approvals,
    top,
  );
  const capabilityDefault = options.clientCapabilities;
  if (capabilityDefault)
    for (const s of servers) s.clientCapabilities = { ...capabilityDefault, ...s.clientCapabilities };
  // MCP Apps off: not declared, and tools are listed whatever their visibility (src/proxy/apps/).
  if (options.apps === false) for (const s of servers) s.clientCapabilities = { ...s.clientCapabilities, apps: false };
  return {
    top,
    config: {
      servers,
      ...carriedOptions(options, 'config'),
      exposeAlways,
      serverDescriptions,
      ...(approval ? { approval } : {}),
      ...carriedOptions(options, 'set'),
      invalid,
    },
  };
}

/** An entry's own `"approval"`, undefined when it has none or a bad one (then in `issues`). */
function entryApproval(id: string, value: unknown, issues: string[]): ApprovalRule | undefined {
  if (!isPlainObject(value) || value.approval === undefined) return undefined;
  return approvalRule(value.approval, `server ${JSON.stringify(id)}: approval`, issues);
}

/**
 * Validates and normalises an already-parsed config object, refusing any problem: the check
 * of a config about to be written. `${VAR}` references are expanded from `opts.env`.
 * @throws ConfigError listing every problem found, the top level's first.
 */
export function parseConfig(raw: unknown, opts: ParseOptions = {}): ProxyConfig {
  const { top, config } = check(raw, opts);
  const issues = [...top, ...(config.invalid ?? []).flatMap((e) => e.issues)];
  if (issues.length > 0) throw new ConfigError(issues);
  const { invalid: _none, ...valid } = config;
  return valid;
}

/**
 * Validates and normalises a config to run: entries with problems are set aside in
 * `invalid` (each with its issues), the others returned in `servers`.
 * @throws ConfigError when the top level is unusable (every problem of the file listed).
 */
export function readConfig(raw: unknown, opts: ParseOptions = {}): ProxyConfig {
  const { top, config } = check(raw, opts);
  if (top.length > 0) throw new ConfigError([...top, ...(config.invalid ?? []).flatMap((e) => e.issues)]);
  return config;
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
 * Loads a config to run from inline JSON or a file (JSON with comments and trailing commas).
 * After trimming, a string starting with `{` is inline JSON; anything else is a file path,
 * resolved against `opts.cwd` (default `process.cwd()`). Bad entries come back in `invalid`
 * ({@link readConfig}).
 * @throws ConfigError for a missing/unreadable file, bad JSON, or an unusable top level.
 */
export function loadConfig(
  input: string,
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; secret?: SecretLookup } = {},
): ProxyConfig {
  const trimmed = input.trim();
  if (trimmed === '')
    throw new ConfigError(['config is empty: pass inline JSON ({"mcpServers": {...}}) or a path to a JSON file']);
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
    raw = JSON.parse(jsoncToJson(text));
  } catch (err) {
    throw new ConfigError([`${source} is not valid JSON: ${jsonErrorText(err, text)}`]);
  }
  const cwd = opts.cwd ?? process.cwd();
  try {
    const vars = clientVarsFor(source === 'inline JSON' ? undefined : source, cwd);
    return readConfig(raw, { env: opts.env, vars, secret: opts.secret });
  } catch (err) {
    if (err instanceof ConfigError && source !== 'inline JSON') throw new ConfigError(err.issues, source);
    throw err;
  }
}
