/**
 * The changes the panel makes to the user's config, as pure functions from one servers map
 * (the file's `mcpServers`) to the next: add, edit (and rename), remove, enable/disable
 * (`disabled`), and turn single tools off and on (the entry's `tools.deny`). Each returns a
 * new map and leaves the input untouched; entries keep their place and their other fields
 * (the same values, so the text edit that follows, jsonTextEdit.ts, leaves their bytes alone).
 *
 * A refused change throws {@link EditError} (the server id is unknown, taken, invalid...);
 * validating the result is the caller's job (configStore.ts), with the CLI's own parser.
 */
import type { EntryDraft } from '../../shared/configContract.js';
import { isPlainObject, SERVER_ID_RE } from './configEntry.js';
import { mergeDraft } from './entryView.js';
import { isGlob } from './toolFilter.js';
import { setOwn } from './jsonText.js';

type Servers = Record<string, unknown>;

/** A change that cannot be made; `status` is the HTTP answer the bridge gives for it. */
export class EditError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
    this.name = 'EditError';
  }
}

const ID_RULE =
  'ids start with a letter or digit, contain only letters, digits, "_", "." and "-", and are at most 64 characters long';

/** Throws unless `id` is a valid server id. */
export function checkId(id: unknown): string {
  if (typeof id !== 'string' || id === '') throw new EditError(400, 'a server needs a name');
  if (!SERVER_ID_RE.test(id)) throw new EditError(400, `"${id.slice(0, 80)}" is not a valid server name: ${ID_RULE}`);
  return id;
}

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

function existing(servers: Servers, id: string): Record<string, unknown> {
  if (!has(servers, id)) throw new EditError(404, `no server "${id}" in the config`);
  const e = servers[id];
  return isPlainObject(e) ? e : {};
}

/** Adds a new entry at the end. Problems of masked values (none on an add) go to `problems`. */
export function addServer(servers: Servers, id: string, draft: EntryDraft, problems: string[] = []): Servers {
  checkId(id);
  if (has(servers, id)) throw new EditError(409, `a server named "${id}" already exists`);
  return { ...servers, [id]: mergeDraft(draft, undefined, problems) };
}

/** Replaces the form's fields of `id` (renamed to `newId` in place when given). */
export function updateServer(
  servers: Servers,
  id: string,
  draft: EntryDraft,
  newId: string = id,
  problems: string[] = [],
): Servers {
  const stored = existing(servers, id);
  checkId(newId);
  if (newId !== id && has(servers, newId)) throw new EditError(409, `a server named "${newId}" already exists`);
  const entry = mergeDraft(draft, stored, problems);
  const next: Servers = {};
  for (const [k, v] of Object.entries(servers)) setOwn(next, k === id ? newId : k, k === id ? entry : v);
  return next;
}

/** Removes `id`. */
export function removeServer(servers: Servers, id: string): Servers {
  existing(servers, id);
  const next = { ...servers };
  delete next[id];
  return next;
}

function replaceEntry(servers: Servers, id: string, entry: Record<string, unknown>): Servers {
  return { ...servers, [id]: entry };
}

/** `disabled: true`, or the key removed (the default is enabled). */
export function setServerEnabled(servers: Servers, id: string, enabled: boolean): Servers {
  const entry = { ...existing(servers, id) };
  if (enabled) delete entry.disabled;
  else entry.disabled = true;
  return replaceEntry(servers, id, entry);
}

/**
 * Turns one tool off (its exact name added to `tools.deny`; a name with `*` or `?` goes to
 * `denyTools`, which matches exactly) or on again (the name removed from both). A tool that
 * a wildcard or an allow list still hides stays hidden (configStore.ts says so).
 */
export function setToolEnabled(servers: Servers, id: string, tool: string, enabled: boolean): Servers {
  if (typeof tool !== 'string' || tool === '') throw new EditError(400, 'a tool name is required');
  const entry = { ...existing(servers, id) };
  const tools: Record<string, unknown> = isPlainObject(entry.tools) ? { ...entry.tools } : {};
  const deny = Array.isArray(tools.deny) ? tools.deny.filter((x) => x !== tool) : [];
  const denyExact = Array.isArray(entry.denyTools) ? entry.denyTools.filter((x) => x !== tool) : undefined;
  if (!enabled && !isGlob(tool)) deny.push(tool);
  if (deny.length) tools.deny = deny;
  else delete tools.deny;
  if (Object.keys(tools).length) entry.tools = tools;
  else delete entry.tools;
  const exact = !enabled && isGlob(tool) ? [...(denyExact ?? []), tool] : denyExact;
  if (exact && exact.length) entry.denyTools = exact;
  else delete entry.denyTools;
  return replaceEntry(servers, id, entry);
}
