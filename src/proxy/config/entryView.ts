/**
 * Secrets are write-only: a raw config entry becomes an {@link EntryView} for the panel with
 * every secret masked, and a draft coming back from the panel is merged into the stored
 * entry with each value still masked replaced by the stored secret.
 *
 * Masked: env values and header values (except a value that is only a `${VAR}` reference,
 * which names a variable and holds no secret, or a `${secret:NAME}` reference to the secret store), `authToken` (never shown), the credentials
 * inside args (redact.ts's rules: after a secret-named flag, in a credential-named header
 * such as mcp-remote's `--header "Authorization: Bearer …"`, in a JSON arg) and the url's
 * userinfo, query and key-like path segments.
 */
import { SECRET_MASK, type EntryDraft, type EntryView } from '../../shared/configContract.js';
import type { SandboxSetting } from '../../shared/sandbox.js';
import { isPlainObject } from './configEntry.js';
import { ARG_MASK, redactArgs, redactUrl } from './redact.js';
import { isGlob } from './toolFilter.js';
import { setOwn } from './jsonText.js';

/** A value that is one `${VAR}` or `${secret:NAME}` reference: a name, no secret. */
const VAR_ONLY_RE = /^\$\{(?:[A-Za-z_][A-Za-z0-9_]*|secret:[A-Za-z0-9_./-]{1,128})\}$/;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const stringMap = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) if (typeof x === 'string') setOwn(out, k, x);
  return out;
};

/** An entry's own `"sandbox"` as the form reads it: its lists of strings and its network; undefined when it has none. */
function sandboxView(v: unknown): SandboxSetting | undefined {
  if (typeof v === 'boolean') return v;
  if (!isPlainObject(v)) return undefined;
  const fs = isPlainObject(v.filesystem) ? v.filesystem : {};
  const out: Exclude<SandboxSetting, boolean> = { filesystem: { read: strings(fs.read), write: strings(fs.write) } };
  const n = v.network;
  if (n === 'none' || n === 'all') out.network = n;
  else if (isPlainObject(n)) out.network = { allow: strings(n.allow) };
  return out;
}

/** A value as the page may see it. */
export function maskValue(value: string): string {
  return VAR_ONLY_RE.test(value) ? value : SECRET_MASK;
}

function maskMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(stringMap(v))) setOwn(out, k, maskValue(x));
  return out;
}

/** Exact tool names an entry turns off (wildcard patterns are not single tools). */
export function deniedToolNames(raw: Record<string, unknown>): string[] {
  const tools = isPlainObject(raw.tools) ? raw.tools : {};
  const names = [...strings(tools.deny).filter((n) => !isGlob(n)), ...strings(raw.denyTools)];
  return [...new Set(names)];
}

/** The panel's view of one raw entry (its version is the store's: configStore.ts). */
export function entryView(id: string, rawValue: unknown): Omit<EntryView, 'version'> {
  const raw = isPlainObject(rawValue) ? rawValue : {};
  const base = {
    id,
    disabled: raw.disabled === true,
    deniedTools: deniedToolNames(raw),
    persistent: raw.persistent !== false,
  };
  if (typeof raw.url === 'string') {
    const type = typeof raw.type === 'string' ? raw.type : typeof raw.transport === 'string' ? raw.transport : 'auto';
    const transport = type === 'streamable-http' || type === 'streamableHttp' ? 'http' : type;
    return { ...base, kind: 'remote', url: redactUrl(raw.url), headers: maskMap(raw.headers), transport };
  }
  const view: Omit<EntryView, 'version'> = {
    ...base,
    kind: 'stdio',
    command: typeof raw.command === 'string' ? raw.command : '',
    args: redactArgs(strings(raw.args)),
    env: maskMap(raw.env),
  };
  if (typeof raw.cwd === 'string') view.cwd = raw.cwd;
  const sandbox = sandboxView(raw.sandbox);
  if (sandbox !== undefined) view.sandbox = sandbox;
  return view;
}

/** Fields the Add/Edit form owns; an edit replaces these and keeps every other field. */
const FORM_FIELDS = ['command', 'args', 'env', 'cwd', 'url', 'headers', 'type', 'transport'] as const;

/** A masked map from the page with the stored values put back where the mask was kept. */
function unmaskMap(
  next: Record<string, string>,
  stored: Record<string, string>,
  field: string,
  problems: string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(next)) {
    if (v === SECRET_MASK) {
      if (Object.prototype.hasOwnProperty.call(stored, k)) setOwn(out, k, stored[k]);
      else problems.push(`${field} "${k}" has no stored value to keep: type its value`);
    } else setOwn(out, k, v);
  }
  return out;
}

/**
 * Args from the page with the stored ones put back where the page kept a masked arg: in its
 * place, or moved (the first stored arg shown the same way). A masked arg with no stored arg
 * behind it is a problem, not a literal `***` stored in place of a secret.
 */
function unmaskArgs(next: string[], stored: string[], problems: string[]): string[] {
  const shown = redactArgs(stored);
  return next.map((a, i) => {
    if (i < stored.length && a === shown[i]) return stored[i];
    if (!a.includes(ARG_MASK)) return a;
    const moved = shown.findIndex((s, j) => s === a && s !== stored[j]);
    if (moved >= 0) return stored[moved];
    problems.push(
      `arg ${i + 1} (${JSON.stringify(a)}) holds a masked value with no stored value to keep: type its value`,
    );
    return a;
  });
}

/**
 * Builds the raw entry to store from a draft: on top of `stored` (an edit) or of nothing
 * (an add). Masked values keep their stored secrets; `problems` receives what cannot be
 * resolved (a mask with no stored value behind it).
 */
export function mergeDraft(draft: EntryDraft, storedValue: unknown, problems: string[]): Record<string, unknown> {
  const stored = isPlainObject(storedValue) ? storedValue : {};
  const out: Record<string, unknown> = { ...stored };
  for (const f of FORM_FIELDS) delete out[f];
  if (draft.kind === 'remote') {
    const oldUrl = typeof stored.url === 'string' ? stored.url : undefined;
    const url = draft.url ?? '';
    // The page was given the redacted url: sent back as it was, it means "unchanged".
    out.url = oldUrl !== undefined && url === redactUrl(oldUrl) ? oldUrl : url;
    const headers = unmaskMap(stringMap(draft.headers), stringMap(stored.headers), 'header', problems);
    if (Object.keys(headers).length) out.headers = headers;
    const t = draft.transport ?? 'auto';
    if (t !== 'auto') out.type = t;
    // A sandbox confines a process the runtime starts: a remote entry has none.
    delete out.sandbox;
    // A remote entry has no stdio fields; authToken stays (it is not in the form).
  } else {
    delete out.authToken;
    out.command = draft.command ?? '';
    const args = unmaskArgs(draft.args ?? [], strings(stored.args), problems);
    if (args.length) out.args = args;
    const env = unmaskMap(stringMap(draft.env), stringMap(stored.env), 'env', problems);
    if (Object.keys(env).length) out.env = env;
    if (draft.cwd !== undefined && draft.cwd !== '') out.cwd = draft.cwd;
    if (stored.type === 'stdio') out.type = 'stdio';
    if (draft.sandbox === null) delete out.sandbox;
    else if (draft.sandbox !== undefined) out.sandbox = draft.sandbox;
    for (const f of ['pingIntervalMs', 'pingTimeoutMs'] as const) delete out[f];
  }
  return reorder(out, stored);
}

/** Keeps the stored entry's key order for keys it had; new keys follow. */
function reorder(entry: Record<string, unknown>, stored: Record<string, unknown>): Record<string, unknown> {
  const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(stored)) if (has(entry, k)) setOwn(out, k, entry[k]);
  for (const [k, v] of Object.entries(entry)) if (!has(out, k)) setOwn(out, k, v);
  return out;
}
