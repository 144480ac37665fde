/**
 * Pasted snippets from other MCP clients, read into entries of our config with a preview of
 * what would be added and what is skipped, and why.
 *
 * Shapes read: Claude Desktop's `claude_desktop_config.json` and Cursor's `mcp.json`
 * (`{"mcpServers": {...}}`), VS Code's `mcp.json` (`{"servers": {...}, "inputs": [...]}`, or
 * `{"mcp": {"servers": ...}}` from its settings.json), and a bare `{"<id>": entry}` map.
 * Comments and trailing commas are accepted (VS Code's files are JSONC).
 * `${env:NAME}` (VS Code, Cursor) becomes our `${NAME}`; an entry using a value only the
 * other client can supply (`${input:...}` prompts, `${workspaceFolder}`) is skipped.
 * Every entry is checked with the CLI's own rules (parseEntry), so a skip reason is the
 * message the CLI would print. Values are never quoted in reasons or summaries. Env and
 * header values that look like credentials (the log mask's rule, redact.ts) are named in
 * `secrets`, for the offer to move them to the secret store (secrets/importSecrets.ts).
 * A `${secret:NAME}` anywhere in an entry reads a value already stored, which the snippet does
 * not bring (perhaps another server's token): each is named in `secretRefs` with the servers
 * of the config it is kept for, and the import is refused unless the change lists it in
 * `allowSecretRefs` (the user's yes to what the preview showed).
 */
import type { ImportItem, ImportPreview } from '../../shared/configContract.js';
import { isPlainObject, parseEntry, SERVER_ID_RE } from './configEntry.js';
import type { ServerEntry } from './config.js';
import { findServers, type FoundServers } from './clientFormats.js';
import { entrySecrets, redactUrl } from './redact.js';
import { JsonTextError, parseJsonString } from './jsonText.js';
import { secretNameOwner, secretRefNames } from '../secrets/secretStore.js';

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The snippet as an object: as is, or wrapped in braces (a pasted `"id": {...}` fragment).
 * @throws JsonTextError when neither reads (the first reading's message), e.g. too deep.
 */
function parseSnippet(text: string): unknown {
  try {
    return parseJsonString(text, 'the snippet').value;
  } catch (err) {
    try {
      return parseJsonString(`{${text}}`, 'the snippet').value;
    } catch {
      throw err;
    }
  }
}

const looksLikeEntry = (v: unknown) => isPlainObject(v) && (typeof v.command === 'string' || typeof v.url === 'string');

const FORMAT_OF: Record<FoundServers['key'], string> = {
  mcpServers: 'mcpServers (Claude Desktop, Cursor)',
  servers: 'VS Code mcp.json',
  'mcpServers+servers': 'mcpServers and servers',
  'mcp.servers': 'VS Code settings',
};

/** Finds the servers map (clientFormats.ts, or a bare `{"<id>": entry}` map) and names the format. */
function serversOf(raw: unknown): { format: string; servers: Record<string, unknown> } | undefined {
  const found = findServers(raw);
  if (found) return { format: FORMAT_OF[found.key], servers: found.servers };
  const values = isPlainObject(raw) ? Object.values(raw) : [];
  if (isPlainObject(raw) && values.length && values.every(looksLikeEntry))
    return { format: 'servers map', servers: raw };
  return undefined;
}

const FOREIGN_VAR_RE =
  /\$\{(input|workspaceFolder|workspaceFolderBasename|userHome|pathSeparator|command|config)(:[^}]*)?\}/;
const IGNORED_FIELDS: Record<string, string> = {
  envFile: 'envFile is not supported: its variables are not loaded (put them under Environment)',
  dev: 'dev (VS Code watch mode) is ignored',
  gallery: 'gallery is ignored',
  version: 'version is ignored',
};

/** `${env:NAME}` -> `${NAME}` in every string of `v`; reports the first foreign variable. */
function convertValue(v: unknown, foreign: string[]): unknown {
  if (typeof v === 'string') {
    const m = FOREIGN_VAR_RE.exec(v);
    if (m) foreign.push(`\${${m[1]}${m[1] === 'input' ? ':...' : ''}}`);
    return v.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, '${$1}');
  }
  if (Array.isArray(v)) return v.map((x) => convertValue(x, foreign));
  // Object.fromEntries defines own keys ("__proto__" stays a key). The depth is bounded by the parse.
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, convertValue(x, foreign)]));
  return v;
}

/** A preview plus the entries it would add, ready to write. */
export interface ImportPlan {
  preview: ImportPreview;
  entries: Record<string, Record<string, unknown>>;
}

/**
 * Reads `text` and plans its import into a config whose servers are `existing`.
 * `env` expands `${VAR}`s for validation, as the bridge will.
 */
export function planImport(
  text: string,
  existing: Readonly<Record<string, unknown>>,
  env: NodeJS.ProcessEnv,
): ImportPlan {
  const empty = (error: string): ImportPlan => ({ preview: { ok: false, add: [], skip: [], error }, entries: {} });
  if (typeof text !== 'string' || text.trim() === '') return empty('Paste a snippet first.');
  let raw: unknown;
  try {
    raw = parseSnippet(text);
  } catch (err) {
    if (err instanceof JsonTextError && err.tooDeep) return empty(`${capitalized(err.message)}.`);
    return empty('The snippet is not valid JSON.');
  }
  const found = serversOf(raw);
  if (!found) {
    return empty(
      'No servers found: paste a claude_desktop_config.json, a Cursor or VS Code mcp.json, or its "mcpServers" / "servers" part.',
    );
  }
  const add: ImportItem[] = [];
  const skip: { id: string; reason: string }[] = [];
  const entries: Record<string, Record<string, unknown>> = {};
  const taken = new Set(Object.keys(existing));
  for (const [id, value] of Object.entries(found.servers)) {
    const shown = id.length > 80 ? `${id.slice(0, 80)}...` : id;
    if (!SERVER_ID_RE.test(id)) {
      skip.push({
        id: shown,
        reason:
          'invalid name: names start with a letter or digit and contain only letters, digits, "_", "." and "-" (at most 64)',
      });
      continue;
    }
    if (taken.has(id)) {
      skip.push({ id, reason: 'a server with this name is already in your config' });
      continue;
    }
    if (!isPlainObject(value)) {
      skip.push({ id, reason: 'not an object' });
      continue;
    }
    const foreign: string[] = [];
    const entry = convertValue(value, foreign) as Record<string, unknown>;
    if (foreign.length) {
      skip.push({
        id,
        reason: `uses ${foreign[0]}, which only the other app can fill in: add it with the form instead`,
      });
      continue;
    }
    const notes: string[] = [];
    for (const [field, note] of Object.entries(IGNORED_FIELDS)) if (field in entry) notes.push(note);
    const issues: string[] = [];
    // A `${secret:NAME}` is resolved where the server starts; here it only has to be well formed.
    const parsed = parseEntry(id, entry, env, issues, { secret: (name) => ({ value: `\${secret:${name}}` }) });
    if (!parsed) {
      skip.push({ id, reason: issues.join('; ') || 'invalid entry' });
      continue;
    }
    taken.add(id);
    entries[id] = entry;
    const summary =
      parsed.kind === 'stdio'
        ? `${String(entry.command)}${parsed.args.length ? ` (${parsed.args.length} argument${parsed.args.length === 1 ? '' : 's'})` : ''}`
        : redactUrl(typeof entry.url === 'string' ? entry.url : '');
    const secrets = plainSecrets(entry, parsed);
    const secretRefs = storedSecretsRead(entry, existing);
    add.push({
      id,
      kind: parsed.kind,
      summary,
      notes,
      ...(secrets.length ? { secrets } : {}),
      ...(secretRefs.length ? { secretRefs } : {}),
    });
  }
  return { preview: { ok: true, format: found.format, add, skip }, entries };
}

/** The env (stdio) or header (remote) keys of `raw` whose value is a plain credential: masked in logs (redact.ts), no `$` in it. */
function plainSecrets(raw: Record<string, unknown>, parsed: ServerEntry): string[] {
  const values = parsed.kind === 'stdio' ? raw.env : raw.headers;
  if (!isPlainObject(values)) return [];
  const masked = new Set(entrySecrets(parsed));
  return Object.entries(values)
    .filter(([, v]) => typeof v === 'string' && !v.includes('$') && masked.has(v))
    .map(([k]) => k);
}

/** Every string in `v` (an entry, as parsed: its depth is bounded). */
function stringsIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsIn(x, out);
  else if (isPlainObject(v)) for (const x of Object.values(v)) stringsIn(x, out);
  return out;
}

/** The `${secret:NAME}`s of `entry`, each with the servers of `existing` it is kept for. */
function storedSecretsRead(
  entry: Record<string, unknown>,
  existing: Readonly<Record<string, unknown>>,
): { name: string; owners: string[] }[] {
  const names = secretRefNames(stringsIn(entry).join('\n'));
  if (names.length === 0) return [];
  const usedBy = new Map<string, string[]>();
  for (const [id, e] of Object.entries(existing))
    for (const name of secretRefNames(stringsIn(e).join('\n'))) usedBy.set(name, [...(usedBy.get(name) ?? []), id]);
  return names.map((name) => {
    const owners = new Set(usedBy.get(name) ?? []);
    const namedFor = secretNameOwner(name)?.serverId;
    if (namedFor !== undefined && Object.hasOwn(existing, namedFor)) owners.add(namedFor);
    return { name, owners: [...owners] };
  });
}

/**
 * Why an import of `preview` may not be written: the stored secrets its entries read that
 * `allowed` does not list (the user did not say yes to), named with whose they are; undefined
 * when there are none.
 */
export function unconfirmedSecretRefs(preview: ImportPreview, allowed: readonly string[] = []): string | undefined {
  const yes = new Set(allowed);
  const unasked: string[] = [];
  for (const item of preview.add)
    for (const ref of item.secretRefs ?? []) {
      if (yes.has(ref.name)) continue;
      const whose = ref.owners.length
        ? `kept for ${ref.owners.map((id) => `"${id}"`).join(', ')}`
        : 'which no server of the config uses';
      unasked.push(`"${item.id}" reads the stored secret ${ref.name} (${whose})`);
    }
  if (unasked.length === 0) return undefined;
  return `not imported: ${unasked.join('; ')}. The snippet does not bring these values: import it only if you trust it, saying yes to each (allowSecretRefs)`;
}
