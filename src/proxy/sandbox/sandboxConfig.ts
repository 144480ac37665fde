/**
 * An entry's `"sandbox"` (or the top-level default it inherits) checked and resolved into a
 * {@link SandboxPolicy}: `true` is no paths and no network, `false` none at all, an object
 * names `filesystem.read`, `filesystem.write` and `network`. Paths take `~` and the config's
 * variables and must be absolute and exist; a `write` path must be the user's own; hosts are
 * hostPattern.ts's. A problem names the entry and the field (config.ts sets the entry aside,
 * alone), never a value beyond the path or host written.
 */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, normalize } from 'node:path';
import type { SandboxNetwork, SandboxPolicy } from '../../shared/sandbox.js';
import { expandVars, type ClientVars } from '../config/envExpand.js';
import { parseHostPattern } from './hostPattern.js';
import type { ServerEntry } from '../config/configTypes.js';
import { issuePrefix } from '../config/configEntry.js';

/** At most this many paths and hosts each: a sandbox is a short list, not a file system. */
export const MAX_SANDBOX_ITEMS = 64;

const SHAPE =
  'must be true, false or {"filesystem": {"read": ["<path>"], "write": ["<path>"]}, "network": "none" | "all" | {"allow": ["<host>"]}}';

interface Context {
  env: NodeJS.ProcessEnv;
  vars: ClientVars;
  /** Disabled entries are never started: their paths need not exist yet. */
  disabled: boolean;
  /** `add(path, message)`: one problem of the entry (config.ts prefixes `server "<id>": `). */
  add: (path: string, msg: string) => void;
  /** Seam: the uid a `write` path must belong to (default the process's; none on Windows). */
  uid?: number;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One path as written, `~` and `${...}` expanded, checked; undefined when it has a problem (reported). */
function resolvePath(written: unknown, field: string, write: boolean, c: Context): string | undefined {
  if (typeof written !== 'string') {
    c.add(field, 'must be a string (an absolute path, or one starting with ~)');
    return undefined;
  }
  const r = expandVars(written, c.env, c.vars);
  const problems = [...r.errors, ...r.missing.map((n) => `references \${${n}}, which is not set`)];
  if (problems.length > 0) {
    for (const p of problems) c.add(field, p);
    return undefined;
  }
  let p = r.value;
  const home = c.vars.userHome ?? homedir();
  if (p === '~' || p.startsWith('~/')) p = join(home, p.slice(1));
  if (!isAbsolute(p)) {
    c.add(field, `("${written}") must be an absolute path or start with ~`);
    return undefined;
  }
  p = normalize(p).replace(/(.)[/\\]+$/, '$1');
  if (c.disabled) return p;
  let st;
  try {
    st = statSync(p);
  } catch {
    c.add(field, `("${p}") does not exist`);
    return undefined;
  }
  const uid = c.uid ?? (typeof process.getuid === 'function' ? process.getuid() : undefined);
  if (write && uid !== undefined && uid !== 0 && st.uid !== uid) {
    c.add(field, `("${p}") is not yours (owner uid ${st.uid}): a sandbox writes only the user's own files`);
    return undefined;
  }
  return p;
}

function pathList(v: unknown, field: string, write: boolean, c: Context): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    c.add(field, 'must be an array of paths');
    return [];
  }
  if (v.length > MAX_SANDBOX_ITEMS) c.add(field, `must have at most ${MAX_SANDBOX_ITEMS} paths`);
  const out: string[] = [];
  v.slice(0, MAX_SANDBOX_ITEMS).forEach((item, i) => {
    const p = resolvePath(item, `${field}[${i}]`, write, c);
    if (p !== undefined && !out.includes(p)) out.push(p);
  });
  return out;
}

function network(v: unknown, field: string, c: Context): SandboxNetwork {
  if (v === undefined || v === 'none') return 'none';
  if (v === 'all') return 'all';
  if (!isObject(v) || !Array.isArray(v.allow) || Object.keys(v).some((k) => k !== 'allow')) {
    c.add(field, 'must be "none", "all" or {"allow": ["<host>[:<port>]", "*.<domain>"]}');
    return 'none';
  }
  if (v.allow.length > MAX_SANDBOX_ITEMS) c.add(`${field}.allow`, `must have at most ${MAX_SANDBOX_ITEMS} hosts`);
  const allow: string[] = [];
  v.allow.slice(0, MAX_SANDBOX_ITEMS).forEach((h, i) => {
    const at = `${field}.allow[${i}]`;
    if (typeof h !== 'string') return c.add(at, 'must be a string');
    const rule = parseHostPattern(h);
    if ('error' in rule) return c.add(at, `("${h.slice(0, 80)}") ${rule.error}`);
    const norm = `${rule.wildcard ? '*.' : ''}${rule.host}${rule.port !== undefined ? `:${rule.port}` : ''}`;
    if (!allow.includes(norm)) allow.push(norm);
  });
  return { allow };
}

/**
 * The policy of `value` (an entry's `sandbox`, or the top level's when the entry has none):
 * undefined for no sandbox. `field` is how problems name it (`sandbox`, or `sandbox (the
 * top-level default)`).
 */
export function resolveSandbox(value: unknown, field: string, c: Context): SandboxPolicy | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { read: [], write: [], network: 'none' };
  if (!isObject(value) || Object.keys(value).some((k) => k !== 'filesystem' && k !== 'network')) {
    c.add(field, SHAPE);
    return undefined;
  }
  const fs = value.filesystem;
  if (fs !== undefined && (!isObject(fs) || Object.keys(fs).some((k) => k !== 'read' && k !== 'write'))) {
    c.add(`${field}.filesystem`, 'must be {"read": ["<path>"], "write": ["<path>"]}');
    return undefined;
  }
  const read = pathList(fs?.read, `${field}.filesystem.read`, false, c);
  const write = pathList(fs?.write, `${field}.filesystem.write`, true, c);
  return {
    read: read.filter((p) => !write.includes(p)),
    write,
    network: network(value.network, `${field}.network`, c),
  };
}

/**
 * The sandbox of one config entry (`raw`, a stdio entry when `stdio`), its own `sandbox` over
 * the top level's `fallback`: the policy, undefined for none, or false when it has problems
 * (reported through `add`; the entry is then set aside).
 */
export function entrySandbox(
  raw: unknown,
  stdio: boolean,
  fallback: unknown,
  c: Context,
): SandboxPolicy | undefined | false {
  const own = isObject(raw) ? raw.sandbox : undefined;
  if (!stdio) {
    if (own !== undefined && own !== false) {
      c.add('sandbox', 'applies only to stdio (command) servers');
      return false;
    }
    return undefined;
  }
  let problems = 0;
  const counted: Context = { ...c, add: (p, m) => (problems++, c.add(p, m)) };
  const policy =
    own !== undefined
      ? resolveSandbox(own, 'sandbox', counted)
      : resolveSandbox(fallback, 'sandbox (the top-level default)', counted);
  return problems > 0 ? false : policy;
}

/**
 * config.ts's hook: sets `entry.sandbox` from the entry's raw value and the top level's
 * `sandbox` (`fallback`); false when it has problems, each pushed to `issues` prefixed as the
 * entry's other problems are.
 */
export function applySandbox(
  entry: ServerEntry,
  raw: unknown,
  fallback: unknown,
  env: NodeJS.ProcessEnv,
  vars: ClientVars,
  issues: string[],
): boolean {
  const prefix = issuePrefix(entry.id);
  const add = (path: string, msg: string) => issues.push(`${prefix}${path} ${msg}`);
  const policy = entrySandbox(raw, entry.kind === 'stdio', fallback, { env, vars, disabled: entry.disabled, add });
  if (policy === false) return false;
  if (policy && entry.kind === 'stdio') entry.sandbox = policy;
  return true;
}
