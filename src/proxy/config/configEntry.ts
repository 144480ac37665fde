/**
 * One `mcpServers` entry: its zod schema and its normalisation into a {@link ServerEntry}
 * (kind detection, `${VAR}` expansion, authToken, defaults). Split from config.ts only to
 * keep files small; config.ts is the public face and re-exports the constants.
 *
 * Messages name the field path and never quote a value, which may be a secret.
 */
// zod/mini: the same checks as classic zod at a fraction of its start-up cost (about 40 ms
// less here: the classic build constructs every locale and method table on import).
import * as z from 'zod/mini';
import type { InvalidEntry, ServerEntry } from './configTypes.js';
import { MAX_TIMEOUT_MS } from '../common/deadline.js';
import { expandVars, type ClientVars } from './envExpand.js';
import { oauthSchema, parseOAuth } from './oauthEntry.js';
import type { ToolFilter } from './toolFilter.js';

/** Per-request timeout when an entry sets none. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Connection (start + initialize + first list) timeout of a stdio server. */
export const DEFAULT_STDIO_CONNECTION_TIMEOUT_MS = 60_000;
/** Connection timeout of a remote (url) server. */
export const DEFAULT_REMOTE_CONNECTION_TIMEOUT_MS = 20_000;
/** How long the first `tools/list` waits for servers still starting. */
export const DEFAULT_READY_TIMEOUT_MS = 30_000;
/**
 * The estimated tokens of an aggregate's tool list past which `"toolExposure": "auto"` lists by
 * search: 10% of a 200k-token context (decisions/0032-tool-exposure.md).
 */
export const DEFAULT_TOOL_BUDGET_TOKENS = 20_000;
/**
 * The cap on a tool result an aggregate session is handed whole, in bytes of its JSON
 * (`maxResultBytes`): about 25,000 tokens at 4 bytes a token (decisions/0033-result-cap.md).
 */
export const DEFAULT_MAX_RESULT_BYTES = 100_000;
/** The smallest `maxResultBytes`: room for the note a cut result ends with. */
export const MIN_RESULT_BYTES = 1024;
export { MAX_TIMEOUT_MS };
/** Server ids double as URL path segments and tool-name prefixes, hence the narrow set. */
export const SERVER_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** zod error callback: "is required" for a missing value, else "must be <what>". */
export const must = (what: string) => (iss: { input?: unknown }) =>
  iss.input === undefined ? 'is required' : `must be ${what}`;
const str = () => z.string({ error: must('a string') });
const strList = () => z.array(str(), { error: must('an array of strings') });
const strMap = (hint = '') =>
  z.record(z.string(), z.string({ error: `must be a string${hint}` }), { error: must('an object of strings') });
const bool = () => z.boolean({ error: must('true or false') });
export function ms(min: 0 | 1) {
  const what = min === 0 ? 'a non-negative integer (milliseconds; 0 disables)' : 'a positive integer (milliseconds)';
  return z
    .int({ error: must(what) })
    .check(
      z.minimum(min, { error: `must be ${what}` }),
      z.maximum(MAX_TIMEOUT_MS, { error: `must be at most ${MAX_TIMEOUT_MS} (about 24.8 days)` }),
    );
}
/** `maxResultBytes`: `"off"` (results pass whole), or a number of bytes with room for the note of a cut. */
export function resultBytes() {
  const what = `"off" or a whole number of bytes, at least ${MIN_RESULT_BYTES}`;
  return z.union(
    [z.literal('off'), z.int({ error: must(what) }).check(z.minimum(MIN_RESULT_BYTES, { error: `must be ${what}` }))],
    { error: must(what) },
  );
}
export const msMap = () => z.record(z.string(), ms(1), { error: must('an object of {"<tool glob>": milliseconds}') });
/** `{"sampling": true, "elicitation": false, "roots": true, "tasks": false}`, any subset; other keys are refused. */
export const capabilityFlags = () =>
  z.strictObject(
    {
      sampling: z.optional(bool()),
      elicitation: z.optional(bool()),
      roots: z.optional(bool()),
      tasks: z.optional(bool()),
    },
    {
      error: (iss: { code?: string; input?: unknown }) =>
        iss.code === 'unrecognized_keys'
          ? 'may only have the keys "sampling", "elicitation", "roots" and "tasks"'
          : must('an object like {"sampling": true, "elicitation": false, "roots": false}')(iss),
    },
  );

const TYPES = ['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse', 'bridge'] as const;
const TRANSPORTS = ['streamable-http', 'sse', 'http'] as const;
const NORMAL_TYPE: Record<string, 'stdio' | 'http' | 'sse' | 'bridge'> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamableHttp: 'http',
  sse: 'sse',
  bridge: 'bridge',
};
/** An entry's `protocol`: the MCP era spoken to it (protocol/rev2026-07-28/), "auto" probing. */
const PROTOCOLS = ['2025-11-25', '2026-07-28', 'auto'] as const;
/** An entry's `expose`: `always` keeps its tools listed when an aggregate lists by search (hub/economy/). */
const EXPOSE = ['always', 'deferred'] as const;
/** `pinning`, top level and per entry: what a tool whose definition drifted from its pin does (src/proxy/pinning/). */
export const PINNING = ['off', 'warn', 'block'] as const;
/** The longest `description` (one line in the meta-tools' descriptions). */
export const MAX_SERVER_DESCRIPTION = 300;
export const oneOf = (values: readonly string[]) => `must be one of ${values.map((v) => `"${v}"`).join(', ')}`;

// Loose objects: unknown fields (other clients' extensions) are kept and ignored, never rejected.
const entrySchema = z.looseObject(
  {
    command: z.optional(str()),
    args: z.optional(strList()),
    env: z.optional(strMap(' (quote numbers and booleans)')),
    cwd: z.optional(str()),
    type: z.optional(z.enum(TYPES, { error: oneOf(TYPES) })),
    transport: z.optional(z.enum(TRANSPORTS, { error: oneOf(TRANSPORTS) })),
    url: z.optional(str()),
    headers: z.optional(strMap()),
    authToken: z.optional(str()),
    oauth: z.optional(oauthSchema()),
    pingIntervalMs: z.optional(ms(0)),
    pingTimeoutMs: z.optional(ms(1)),
    disabled: z.optional(bool()),
    timeoutMs: z.optional(ms(1)),
    connectionTimeoutMs: z.optional(ms(1)),
    tools: z.optional(
      z.looseObject(
        { allow: z.optional(strList()), deny: z.optional(strList()) },
        {
          error: must('an object like {"allow": ["glob"], "deny": ["glob"]}'),
        },
      ),
    ),
    allowTools: z.optional(strList()),
    denyTools: z.optional(strList()),
    toolTimeouts: z.optional(msMap()),
    persistent: z.optional(bool()),
    clientCapabilities: z.optional(capabilityFlags()),
    protocol: z.optional(z.enum(PROTOCOLS, { error: oneOf(PROTOCOLS) })),
    expose: z.optional(z.enum(EXPOSE, { error: oneOf(EXPOSE) })),
    description: z.optional(
      str().check(
        z.maxLength(MAX_SERVER_DESCRIPTION, { error: `must be at most ${MAX_SERVER_DESCRIPTION} characters` }),
      ),
    ),
    maxResultBytes: z.optional(resultBytes()),
    pinning: z.optional(z.enum(PINNING, { error: oneOf(PINNING) })),
    capture: z.optional(bool()),
  },
  { error: must('an object') },
);
type RawEntry = z.infer<typeof entrySchema>;

const STDIO_ONLY = ['command', 'args', 'env', 'cwd'] as const;
const REMOTE_ONLY = ['url', 'headers', 'authToken', 'oauth', 'pingIntervalMs', 'pingTimeoutMs'] as const;
const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

// ---- helpers ------------------------------------------------------------------------------

/** `['env', 'API-KEY']` -> `env["API-KEY"]`, `['args', 1]` -> `args[1]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string' && /^[A-Za-z_$][\w$]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isEmptyValue(v: unknown): boolean {
  return (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

// ---- entries ------------------------------------------------------------------------------

/** How an entry's problems start: `server "<id>": ` (a long id shortened). */
export function issuePrefix(id: string): string {
  return `server ${JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}...` : id)}: `;
}

/**
 * Checks and normalises one entry; its problems go to `issues` (and the result is undefined).
 * `vars`: other clients' predefined variables (`${userHome}`, `${workspaceFolder}`; envExpand.ts).
 */
export function parseEntry(
  id: string,
  raw: unknown,
  env: NodeJS.ProcessEnv,
  issues: string[],
  vars: ClientVars = {},
): ServerEntry | undefined {
  const prefix = issuePrefix(id);
  const add = (path: string, msg: string) => issues.push(`${prefix}${path ? `${path} ` : ''}${msg}`);
  const before = issues.length;
  if (!SERVER_ID_RE.test(id)) {
    add(
      '',
      'has an invalid id: ids start with a letter or digit, contain only letters, digits, "_", "." and "-", and are at most 64 characters long',
    );
  }
  const parsed = entrySchema.safeParse(raw);
  if (!parsed.success) {
    for (const iss of parsed.error.issues) add(formatPath(iss.path), iss.message);
    return undefined;
  }
  const e: RawEntry = parsed.data;
  const disabled = e.disabled ?? false;
  const declared = NORMAL_TYPE[e.type ?? e.transport ?? ''] as 'stdio' | 'http' | 'sse' | 'bridge' | undefined;
  if (e.type !== undefined && e.transport !== undefined && NORMAL_TYPE[e.type] !== NORMAL_TYPE[e.transport]) {
    add('transport', `("${e.transport}") contradicts type ("${e.type}"); give only one of them`);
  }
  if ((e.command === undefined) === (e.url === undefined)) {
    add(
      '',
      e.command === undefined
        ? 'needs either command (a stdio server) or url (a remote server)'
        : 'has both command and url: a server is either stdio (command) or remote (url)',
    );
    return undefined;
  }
  const kind = e.command !== undefined ? 'stdio' : 'remote';
  if (kind === 'stdio' && declared !== undefined && declared !== 'stdio') {
    add(e.type !== undefined ? 'type' : 'transport', `"${e.type ?? e.transport}" needs url, not command`);
  }
  if (kind === 'remote' && declared === 'stdio') add('type', '"stdio" needs command, not url');
  for (const f of kind === 'stdio' ? REMOTE_ONLY : STDIO_ONLY) {
    const v = (e as Record<string, unknown>)[f];
    if (v !== undefined && !isEmptyValue(v))
      add(f, `applies only to ${kind === 'stdio' ? 'remote (url)' : 'stdio (command)'} servers`);
  }

  let unresolved = false;
  /**
   * Expands one string field and rejects characters that spawn or HTTP would choke on.
   * A disabled entry tolerates unset variables: it is never started, and a user often
   * disables a server precisely because its token is not set.
   */
  const val = (path: string, value: string, singleLine = false, secretsUsed?: Set<string>): string => {
    const r = expandVars(value, env, vars);
    for (const name of r.secrets ?? []) secretsUsed?.add(name);
    for (const m of r.errors) add(path, `has an ${m}`);
    for (const name of disabled ? [] : r.missing) {
      add(path, `references \${${name}}, but that variable is not set (write \${${name}:-default} to give a fallback)`);
    }
    for (const m of disabled ? [] : (r.unavailable ?? [])) add(path, m);
    unresolved = r.missing.length > 0 || r.unavailable !== undefined;
    if ((singleLine ? /[\r\n\0]/ : /\0/).test(r.value)) {
      add(path, singleLine ? 'must not contain line breaks or NUL characters' : 'must not contain NUL characters');
    }
    return r.value;
  };

  const toolFilter: ToolFilter = {};
  if (e.tools?.allow) toolFilter.allow = [...e.tools.allow];
  if (e.tools?.deny) toolFilter.deny = [...e.tools.deny];
  if (e.allowTools) toolFilter.allowExact = [...e.allowTools];
  if (e.denyTools) toolFilter.denyExact = [...e.denyTools];
  const toolTimeouts = { ...(e.toolTimeouts ?? {}) };
  if ('' in toolTimeouts) add('toolTimeouts', 'must not have an empty tool pattern');
  const common = {
    id,
    disabled,
    timeoutMs: e.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    toolFilter,
    toolTimeouts,
    persistent: e.persistent ?? true,
    ...(e.clientCapabilities ? { clientCapabilities: { ...e.clientCapabilities } } : {}),
    ...(e.protocol && e.protocol !== 'auto' ? { protocol: e.protocol } : {}),
    ...(e.maxResultBytes !== undefined ? { maxResultBytes: e.maxResultBytes } : {}),
    ...(e.pinning !== undefined ? { pinning: e.pinning } : {}),
    ...(e.capture ? { capture: true } : {}),
  };

  let entry: ServerEntry;
  if (kind === 'stdio') {
    const command = val('command', e.command as string);
    if (command.trim() === '') add('command', 'must not be empty');
    const argSecrets = new Set<string>();
    const args = (e.args ?? []).map((a, i) => val(`args[${i}]`, a, false, argSecrets));
    const childEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(e.env ?? {})) {
      const path = formatPath(['env', k]);
      if (k === '' || /[=\0]/.test(k)) add(path, 'is not a valid environment variable name');
      childEnv[k] = val(path, v);
    }
    const connectionTimeoutMs = e.connectionTimeoutMs ?? DEFAULT_STDIO_CONNECTION_TIMEOUT_MS;
    const written = { command: e.command as string, args: [...(e.args ?? [])] };
    entry = { ...common, kind, connectionTimeoutMs, command, args, env: childEnv, written };
    if (argSecrets.size > 0) entry.argSecrets = [...argSecrets];
    if (e.cwd !== undefined) {
      entry.cwd = val('cwd', e.cwd);
      if (entry.cwd.trim() === '') add('cwd', 'must not be empty');
    }
  } else {
    const url = val('url', e.url as string, true);
    if (!unresolved) checkUrl(url, (msg) => add('url', msg));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(e.headers ?? {})) {
      const path = formatPath(['headers', k]);
      if (!HEADER_NAME_RE.test(k)) add(path, 'is not a valid HTTP header name');
      headers[k] = val(path, v, true);
    }
    // An empty token (e.g. `${TOKEN:-}`) means "no token", which keeps optional auth simple.
    const token = e.authToken === undefined ? '' : val('authToken', e.authToken, true);
    if (token !== '') {
      for (const k of Object.keys(headers)) if (k.toLowerCase() === 'authorization') delete headers[k];
      headers.Authorization = `Bearer ${token}`;
    }
    const type = declared === undefined || declared === 'stdio' ? 'auto' : declared;
    const connectionTimeoutMs = e.connectionTimeoutMs ?? DEFAULT_REMOTE_CONNECTION_TIMEOUT_MS;
    entry = { ...common, kind, type, connectionTimeoutMs, url, headers, written: { url: e.url as string } };
    if (e.pingIntervalMs !== undefined) entry.pingIntervalMs = e.pingIntervalMs;
    if (e.pingTimeoutMs !== undefined) entry.pingTimeoutMs = e.pingTimeoutMs;
    if (e.oauth !== undefined) entry.oauth = parseOAuth(e.oauth, val, add);
  }
  return issues.length === before ? entry : undefined;
}

/**
 * What an entry says of how an aggregate presents its tools (`expose`, `description`): kept out
 * of the {@link ServerEntry}, so that changing them restarts nothing (config.ts gathers them at
 * the top level). `raw` is an entry {@link parseEntry} accepted.
 */
export function entryPresentation(raw: unknown): { always: boolean; description?: string } {
  const e = isPlainObject(raw) ? raw : {};
  const description = typeof e.description === 'string' ? e.description.trim() : '';
  return { always: e.expose === 'always', ...(description ? { description } : {}) };
}

/** The {@link InvalidEntry} of an entry whose problems are `issues`. */
export function invalidEntry(id: string, raw: unknown, issues: string[]): InvalidEntry {
  const prefix = issuePrefix(id);
  const e = isPlainObject(raw) ? raw : {};
  const kind = e.type ?? e.transport;
  const transport = typeof e.url === 'string' && e.command === undefined ? (kind === 'sse' ? 'sse' : 'http') : 'stdio';
  const reason = issues.map((i) => (i.startsWith(prefix) ? i.slice(prefix.length) : i)).join('; ');
  return {
    id,
    issues,
    reason: `invalid config entry: ${reason}`,
    transport,
    disabled: e.disabled === true,
    persistent: e.persistent !== false,
  };
}

/** Checks an expanded url without ever quoting it (it may carry credentials). */
function checkUrl(value: string, fail: (msg: string) => void): void {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return fail('is not a valid absolute URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    fail(`must be an http or https URL (got scheme "${u.protocol}")`);
}
