/**
 * The config file the panel manages: read it as a masked {@link ConfigView}, and apply one
 * change at a time: read the file as it is now, check the entry is still the version the
 * change was made from, change the servers map, turn the difference into edits of the text
 * in place (jsonTextEdit.ts: every byte outside them is kept), validate the result with the
 * CLI's own parser and messages, write it atomically with a `.bak`. An invalid result writes
 * nothing. When the file changes between the read and the write (an editor saved it), the
 * change is made again on the new text, and refused with {@link CONFIG_CONFLICT} if its
 * entry is what changed. Applying the written file to running servers is the file watchers'
 * job (the app's runtime, the bridge's `--watch`); this ends at the file. The same write
 * renames `${secret:...}` references for secrets/secretRenames.ts (`renameSecretRefs`).
 *
 * Used by the bridge's `/config` routes and by the app's IPC handlers alike.
 */
import { createHmac, randomBytes } from 'node:crypto';
import {
  CONFIG_CONFLICT,
  type ConfigChange,
  type ConfigChangeResult,
  type ConfigView,
  type EntryDraft,
  type ImportPreview,
} from '../../shared/configContract.js';
import { ConfigError, parseConfig } from './config.js';
import type { SecretLookup } from './envExpand.js';
import { addServer, EditError, removeServer, setServerEnabled, setToolEnabled, updateServer } from './configEdit.js';
import {
  ConfigChangedMeanwhile,
  readConfigDocument,
  withText,
  writeConfigDocument,
  type ConfigDocument,
  type WriteHooks,
} from './configFile.js';
import { planImport, unconfirmedSecretRefs, type ImportPlan } from './configImport.js';
import { isPlainObject } from './configEntry.js';
import { movesSecretOut } from './movedSecrets.js';
import { entryView } from './entryView.js';
import { JsonTextError, keyOf, setOwn, type JsonText } from './jsonText.js';
import { secretRef, type SecretField } from '../secrets/secretStore.js';
import { applyOps, opsBetween, type JsonOp } from './jsonTextEdit.js';
import { isToolAllowed, type ToolFilter } from './toolFilter.js';

type Servers = Record<string, unknown>;

export type { ConfigChange };

/** One `${secret:from}` reference, the whole value of an entry's secret field, to become `${secret:to}`. */
export interface SecretRefPlace {
  id: string;
  field: SecretField;
  /** The env or header name ("" for `authToken`). */
  key: string;
  from: string;
  to: string;
}

/** A change that ran into a rule; `status` is what the bridge answers. */
export interface ChangeFailure extends ConfigChangeResult {
  ok: false;
  status: number;
}

/** How often a change is made again on a file that keeps changing under it. */
const WRITE_ATTEMPTS = 3;

/**
 * Keys entry versions (an HMAC, not a bare hash, so a version says nothing about the secrets
 * in the entry); one per process: the view and the change go to the same process.
 */
const VERSION_KEY = randomBytes(32);

export class ConfigStore {
  /**
   * @param env what `${VAR}`s expand from when validating (the bridge's environment).
   * @param hooks what runs inside a write (configFile.ts `WriteHooks`: a test's editor).
   */
  constructor(
    readonly path: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly hooks: WriteHooks = {},
  ) {}

  /** The servers map as the file holds it now. @throws ConfigError when the file cannot be read. */
  servers(): Record<string, unknown> {
    return readConfigDocument(this.path).servers;
  }

  /** The config as the page may see it. @throws ConfigError when the file cannot be read. */
  view(): ConfigView {
    return viewOf(readConfigDocument(this.path));
  }

  /** What importing `text` would add and skip; writes nothing. */
  previewImport(text: string): ImportPreview {
    return this.planImport(text).preview;
  }

  /** The preview and the entries importing `text` would add now. */
  planImport(text: string): ImportPlan {
    const doc = readConfigDocument(this.path);
    return planImport(text, doc.servers, this.env);
  }

  /** Applies one change; never throws for bad input (the failure says why). */
  apply(change: ConfigChange): ConfigChangeResult | ChangeFailure {
    for (let attempt = 1; ; attempt++) {
      const r = this.applyOnce(change);
      if (!(r instanceof ConfigChangedMeanwhile)) return r;
      if (attempt === WRITE_ATTEMPTS) return { ...fail(409, `${r.message}; try again`), code: CONFIG_CONFLICT };
    }
  }

  private applyOnce(change: ConfigChange): ConfigChangeResult | ChangeFailure | ConfigChangedMeanwhile {
    let before: ConfigDocument;
    try {
      before = readConfigDocument(this.path);
    } catch (err) {
      return fail(500, err instanceof ConfigError ? err.issues.join('; ') : String(err));
    }
    const problems: string[] = [];
    let after: JsonText;
    let next: Servers;
    let note: string | undefined;
    try {
      if ('version' in change && change.version !== undefined && change.version !== entryVersion(before, change.id)) {
        return {
          ...fail(
            409,
            `"${change.id}" was changed in ${before.path} since it was read (by an editor or another window): read it again and redo the change`,
          ),
          code: CONFIG_CONFLICT,
        };
      }
      next = this.changed(before.servers, change, problems);
      if (change.op === 'tool' && change.enabled) note = stillHidden(next, change.id, change.tool);
      if (problems.length) return { ...fail(400, 'the change is not valid'), issues: problems };
      after = applyOps(before.json, opsFor(before, change, next), before.path);
    } catch (err) {
      if (err instanceof EditError) return fail(err.status, err.message);
      if (err instanceof JsonTextError) return fail(409, err.message);
      throw err;
    }
    // A secret moved to the store leaves no copy of its value in a `.bak` (movedSecrets.ts).
    const backup = change.op !== 'update' || !movesSecretOut(before.servers, next, change.id, change.newId);
    const r = this.write(before, after, backup);
    if (r instanceof ConfigChangedMeanwhile || !r.ok || !note) return r;
    return { ...r, error: note };
  }

  /**
   * Rewrites `${secret:from}` to `${secret:to}` at each place given where the file still
   * holds exactly that (secrets/secretRenames.ts), every other byte kept; made again on a
   * file that changes under it, as a change is. Never throws (the failure says why).
   * @returns the places rewritten with the result.
   */
  renameSecretRefs(places: readonly SecretRefPlace[]): {
    result: ConfigChangeResult | ChangeFailure;
    renamed: SecretRefPlace[];
  } {
    for (let attempt = 1; ; attempt++) {
      const r = this.renameOnce(places);
      if (!(r instanceof ConfigChangedMeanwhile)) return r;
      if (attempt === WRITE_ATTEMPTS)
        return { result: { ...fail(409, `${r.message}; try again`), code: CONFIG_CONFLICT }, renamed: [] };
    }
  }

  private renameOnce(
    places: readonly SecretRefPlace[],
  ): { result: ConfigChangeResult | ChangeFailure; renamed: SecretRefPlace[] } | ConfigChangedMeanwhile {
    let before: ConfigDocument;
    try {
      before = readConfigDocument(this.path);
    } catch (err) {
      return { result: fail(500, err instanceof ConfigError ? err.issues.join('; ') : String(err)), renamed: [] };
    }
    const next: Servers = { ...before.servers };
    const renamed: SecretRefPlace[] = [];
    for (const p of places) {
      const entry = next[p.id];
      if (!isPlainObject(entry)) continue;
      if (p.field === 'authToken') {
        if (entry.authToken !== secretRef(p.from)) continue;
        next[p.id] = { ...entry, authToken: secretRef(p.to) };
      } else {
        const values = entry[p.field];
        if (!isPlainObject(values) || !Object.hasOwn(values, p.key) || values[p.key] !== secretRef(p.from)) continue;
        const changed = { ...values };
        setOwn(changed, p.key, secretRef(p.to));
        next[p.id] = { ...entry, [p.field]: changed };
      }
      renamed.push(p);
    }
    if (renamed.length === 0) return { result: { ok: true, config: viewOf(before) }, renamed };
    let after: JsonText;
    try {
      after = applyOps(before.json, opsBetween([before.serversKey], before.servers, next), before.path);
    } catch (err) {
      if (err instanceof JsonTextError) return { result: fail(409, err.message), renamed: [] };
      throw err;
    }
    const result = this.write(before, after, true);
    if (result instanceof ConfigChangedMeanwhile) return result;
    return { result, renamed: result.ok ? renamed : [] };
  }

  /** Checks `after` with the CLI's rules and writes it over `before` (nothing when it is the same bytes). */
  private write(
    before: ConfigDocument,
    after: JsonText,
    backup: boolean,
  ): ConfigChangeResult | ChangeFailure | ConfigChangedMeanwhile {
    let written: ConfigDocument;
    try {
      written = withText(before.path, before.target, after, before.mode);
      // A `${secret:NAME}` is resolved where the server starts; here it only has to be well formed.
      parseConfig(runtimeShape(written), { env: this.env, secret: keepSecretRefs });
    } catch (err) {
      if (err instanceof ConfigError) return { ...fail(400, 'the change is not valid'), issues: err.issues };
      throw err;
    }
    try {
      // A change that changes nothing (a switch set to what it is) writes nothing: no .bak, no reload.
      if (!after.bytes.equals(before.json.bytes)) writeConfigDocument(before, after.bytes, { backup, ...this.hooks });
    } catch (err) {
      if (err instanceof ConfigChangedMeanwhile) return err;
      return fail(500, `cannot write ${this.path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    return { ok: true, config: viewOf(written) };
  }

  private changed(servers: Servers, c: ConfigChange, problems: string[]): Servers {
    switch (c.op) {
      case 'add':
        return addServer(servers, c.id, c.entry, problems);
      case 'update':
        return updateServer(servers, c.id, c.entry, c.newId ?? c.id, problems);
      case 'remove':
        return removeServer(servers, c.id);
      case 'enable':
        return setServerEnabled(servers, c.id, c.enabled);
      case 'tool':
        return setToolEnabled(servers, c.id, c.tool, c.enabled);
      case 'import': {
        const plan = planImport(c.text, servers, this.env);
        if (!plan.preview.ok) throw new EditError(400, plan.preview.error ?? 'nothing to import');
        const unasked = unconfirmedSecretRefs(plan.preview, c.allowSecretRefs);
        if (unasked) throw new EditError(400, unasked);
        if (Object.keys(plan.entries).length === 0)
          throw new EditError(400, 'nothing to import: every server in the snippet is skipped');
        return { ...servers, ...plan.entries };
      }
      default:
        throw new EditError(400, 'unknown change');
    }
  }
}

/** The text edits of a change: only what differs; a rename rewrites the key alone, in place. */
function opsFor(before: ConfigDocument, change: ConfigChange, next: Servers): JsonOp[] {
  const key = before.serversKey;
  if (change.op === 'update' && change.newId !== undefined && change.newId !== change.id) {
    const ops = opsBetween([key, change.id], before.servers[change.id], next[change.newId]);
    ops.push({ op: 'rename', path: [key, change.id], key: change.newId });
    return ops;
  }
  return opsBetween([key], before.servers, next);
}

/** The document as the CLI reads it: a VS Code file's `servers` as `mcpServers`. */
function runtimeShape(d: ConfigDocument): unknown {
  if (d.serversKey === 'mcpServers') return d.doc;
  const { servers, ...rest } = d.doc;
  return { ...rest, mcpServers: servers };
}

/**
 * The version of entry `id`: an HMAC of its bytes in the file (key and value), "" when the
 * file has no such entry (so a change made from a removed entry is a conflict too).
 */
function entryVersion(d: ConfigDocument, id: string): string {
  const json = d.json;
  const top =
    json.tree?.type === 'object' ? (json.tree.children ?? []).filter((p) => keyOf(json, p) === d.serversKey) : [];
  const servers = top[top.length - 1]?.children?.[1];
  if (!servers || servers.type !== 'object') return '';
  const hmac = createHmac('sha256', VERSION_KEY);
  let found = false;
  // Every occurrence of a duplicated id counts (editing one is refused anyway).
  for (const p of servers.children ?? []) {
    if (keyOf(json, p) !== id) continue;
    found = true;
    hmac.update(json.bytes.subarray(json.bomLength + p.offset, json.bomLength + p.offset + p.length));
  }
  return found ? hmac.digest('base64url').slice(0, 22) : '';
}

function fail(status: number, error: string): ChangeFailure {
  return { ok: false, status, error };
}

function viewOf(d: ConfigDocument): ConfigView {
  const view: ConfigView = {
    file: d.path,
    servers: Object.entries(d.servers).map(([id, e]) => ({ ...entryView(id, e), version: entryVersion(d, id) })),
  };
  if (d.warnings.length) view.warnings = d.warnings;
  return view;
}

/** Why a tool turned back on is still hidden (a wildcard or an allow list), if it is. */
function stillHidden(servers: Servers, id: string, tool: string): string | undefined {
  const e = servers[id];
  if (!isPlainObject(e)) return undefined;
  const t = isPlainObject(e.tools) ? e.tools : {};
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
  const filter: ToolFilter = {};
  if (list(t.allow)) filter.allow = list(t.allow);
  if (list(t.deny)) filter.deny = list(t.deny);
  if (list(e.allowTools)) filter.allowExact = list(e.allowTools);
  if (list(e.denyTools)) filter.denyExact = list(e.denyTools);
  return isToolAllowed(filter, tool)
    ? undefined
    : `"${tool}" is still hidden by a pattern or an allow list in the entry's "tools"`;
}

/** Parses a change from untrusted JSON (a route body, an IPC argument); undefined when malformed. */
/** A config checked, not run: each `${secret:NAME}` stays as written (it is resolved where the server starts). */
const keepSecretRefs: SecretLookup = (name) => ({ value: `\${secret:${name}}` });

export function changeFrom(body: unknown): ConfigChange | undefined {
  if (!isPlainObject(body) || typeof body.op !== 'string') return undefined;
  const str = (v: unknown): v is string => typeof v === 'string';
  const draftOk = (v: unknown): v is EntryDraft => isPlainObject(v) && (v.kind === 'stdio' || v.kind === 'remote');
  if (body.version !== undefined && !str(body.version)) return undefined;
  const version = str(body.version) ? { version: body.version } : {};
  switch (body.op) {
    case 'add':
      return str(body.id) && draftOk(body.entry) ? { op: 'add', id: body.id, entry: body.entry } : undefined;
    case 'update':
      if (!str(body.id) || !draftOk(body.entry) || (body.newId !== undefined && !str(body.newId))) return undefined;
      return {
        op: 'update',
        id: body.id,
        entry: body.entry,
        ...(str(body.newId) ? { newId: body.newId } : {}),
        ...version,
      };
    case 'remove':
      return str(body.id) ? { op: 'remove', id: body.id, ...version } : undefined;
    case 'enable':
      return str(body.id) && typeof body.enabled === 'boolean'
        ? { op: 'enable', id: body.id, enabled: body.enabled, ...version }
        : undefined;
    case 'tool':
      return str(body.id) && str(body.tool) && typeof body.enabled === 'boolean'
        ? { op: 'tool', id: body.id, tool: body.tool, enabled: body.enabled, ...version }
        : undefined;
    case 'import': {
      const allowed = body.allowSecretRefs;
      if (!str(body.text) || (allowed !== undefined && !(Array.isArray(allowed) && allowed.every(str))))
        return undefined;
      return {
        op: 'import',
        text: body.text,
        ...(body.secrets === 'store' ? { secrets: 'store' as const } : {}),
        ...(allowed !== undefined ? { allowSecretRefs: allowed } : {}),
      };
    }
    default:
      return undefined;
  }
}
