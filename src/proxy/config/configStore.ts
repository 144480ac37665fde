/**
 * The config file the panel manages: read it as a masked {@link ConfigView}, and apply one
 * change at a time (read the file as it is now, change it, validate the result with the CLI's
 * own parser and messages, write it atomically with a `.bak`). An invalid result writes
 * nothing. Applying the written file to running servers is the file watchers' job (the
 * app's runtime, the bridge's `--watch`); this ends at the file.
 *
 * Used by the bridge's `/config` routes and by the app's IPC handlers alike.
 */
import type { ConfigChange, ConfigChangeResult, ConfigView, EntryDraft, ImportPreview } from '../../shared/configContract.js';
import { ConfigError, parseConfig } from './config.js';
import { addServer, EditError, removeServer, setServerEnabled, setToolEnabled, updateServer } from './configEdit.js';
import { readConfigDocument, writeConfigDocument, type ConfigDocument } from './configFile.js';
import { planImport } from './configImport.js';
import { isPlainObject } from './configEntry.js';
import { entryView } from './entryView.js';
import { isToolAllowed, type ToolFilter } from './toolFilter.js';

type Doc = ConfigDocument['doc'];

export type { ConfigChange };

/** A change that ran into a rule; `status` is what the bridge answers. */
export interface ChangeFailure extends ConfigChangeResult {
  ok: false;
  status: number;
}

export class ConfigStore {
  /** @param env what `${VAR}`s expand from when validating (the bridge's environment). */
  constructor(
    readonly path: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** The config as the page may see it. @throws ConfigError when the file cannot be read. */
  view(): ConfigView {
    return viewOf(readConfigDocument(this.path));
  }

  /** What importing `text` would add and skip; writes nothing. */
  previewImport(text: string): ImportPreview {
    const doc = readConfigDocument(this.path);
    return planImport(text, Object.keys(doc.doc.mcpServers), this.env).preview;
  }

  /** Applies one change; never throws for bad input (the failure says why). */
  apply(change: ConfigChange): ConfigChangeResult | ChangeFailure {
    let before: ConfigDocument;
    try {
      before = readConfigDocument(this.path);
    } catch (err) {
      return fail(500, err instanceof ConfigError ? err.issues.join('; ') : String(err));
    }
    const problems: string[] = [];
    let next: Doc;
    let note: string | undefined;
    try {
      next = this.changed(before.doc, change, problems);
      if (change.op === 'tool' && change.enabled) note = stillHidden(next, change.id, change.tool);
    } catch (err) {
      if (err instanceof EditError) return fail(err.status, err.message);
      throw err;
    }
    if (problems.length) return { ...fail(400, 'the change is not valid'), issues: problems };
    try {
      parseConfig(next, { env: this.env });
    } catch (err) {
      if (err instanceof ConfigError) return { ...fail(400, 'the change is not valid'), issues: err.issues };
      throw err;
    }
    try {
      writeConfigDocument(before, next);
    } catch (err) {
      return fail(500, `cannot write ${this.path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    const result: ConfigChangeResult = { ok: true, config: viewOf({ ...before, doc: next }) };
    if (note) result.error = note;
    return result;
  }

  private changed(doc: Doc, c: ConfigChange, problems: string[]): Doc {
    switch (c.op) {
      case 'add':
        return addServer(doc, c.id, c.entry, problems);
      case 'update':
        return updateServer(doc, c.id, c.entry, c.newId ?? c.id, problems);
      case 'remove':
        return removeServer(doc, c.id);
      case 'enable':
        return setServerEnabled(doc, c.id, c.enabled);
      case 'tool':
        return setToolEnabled(doc, c.id, c.tool, c.enabled);
      case 'import': {
        const plan = planImport(c.text, Object.keys(doc.mcpServers), this.env);
        if (!plan.preview.ok) throw new EditError(400, plan.preview.error ?? 'nothing to import');
        if (Object.keys(plan.entries).length === 0) throw new EditError(400, 'nothing to import: every server in the snippet is skipped');
        return { ...doc, mcpServers: { ...doc.mcpServers, ...plan.entries } };
      }
      default:
        throw new EditError(400, 'unknown change');
    }
  }
}

function fail(status: number, error: string): ChangeFailure {
  return { ok: false, status, error };
}

function viewOf(d: ConfigDocument): ConfigView {
  return { file: d.path, servers: Object.entries(d.doc.mcpServers).map(([id, e]) => entryView(id, e)) };
}

/** Why a tool turned back on is still hidden (a wildcard or an allow list), if it is. */
function stillHidden(doc: Doc, id: string, tool: string): string | undefined {
  const e = doc.mcpServers[id];
  if (!isPlainObject(e)) return undefined;
  const t = isPlainObject(e.tools) ? e.tools : {};
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
  const filter: ToolFilter = {};
  if (list(t.allow)) filter.allow = list(t.allow);
  if (list(t.deny)) filter.deny = list(t.deny);
  if (list(e.allowTools)) filter.allowExact = list(e.allowTools);
  if (list(e.denyTools)) filter.denyExact = list(e.denyTools);
  return isToolAllowed(filter, tool) ? undefined : `"${tool}" is still hidden by a pattern or an allow list in the entry's "tools"`;
}

/** Parses a change from untrusted JSON (a route body, an IPC argument); undefined when malformed. */
export function changeFrom(body: unknown): ConfigChange | undefined {
  if (!isPlainObject(body) || typeof body.op !== 'string') return undefined;
  const str = (v: unknown) => typeof v === 'string';
  const draftOk = (v: unknown): v is EntryDraft => isPlainObject(v) && (v.kind === 'stdio' || v.kind === 'remote');
  switch (body.op) {
    case 'add':
      return str(body.id) && draftOk(body.entry) ? { op: 'add', id: body.id as string, entry: body.entry } : undefined;
    case 'update':
      if (!str(body.id) || !draftOk(body.entry) || (body.newId !== undefined && !str(body.newId))) return undefined;
      return { op: 'update', id: body.id as string, entry: body.entry, ...(body.newId !== undefined ? { newId: body.newId as string } : {}) };
    case 'remove':
      return str(body.id) ? { op: 'remove', id: body.id as string } : undefined;
    case 'enable':
      return str(body.id) && typeof body.enabled === 'boolean' ? { op: 'enable', id: body.id as string, enabled: body.enabled } : undefined;
    case 'tool':
      return str(body.id) && str(body.tool) && typeof body.enabled === 'boolean'
        ? { op: 'tool', id: body.id as string, tool: body.tool as string, enabled: body.enabled }
        : undefined;
    case 'import':
      return str(body.text) ? { op: 'import', text: body.text as string } : undefined;
    default:
      return undefined;
  }
}
