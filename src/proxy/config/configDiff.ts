/**
 * What changed between two normalised configs, server by server: the servers added, removed,
 * changed (any normalised field of the entry: command, args, env, url, headers, filters,
 * timeouts, `disabled`, the merged client capabilities) and unchanged, and which top-level
 * options moved (an entry's `expose` and `description` are options: they change how an
 * aggregate lists tools, not the server). Entries are compared after normalisation, so key order, an `authToken`
 * written as a header or a default spelt out do not count as changes. Pure: nothing here
 * starts or stops anything (the bridge applies a diff in bridge/reload.ts).
 */
import type { ProxyConfig, ServerEntry } from './configTypes.js';
import { LIVE_OPTIONS } from './topLevelOptions.js';

/**
 * Top-level options that apply to every server without restarting one: the `live` rows of
 * topLevelOptions.ts, an entry's presentation, and the approval policy. Only those that moved
 * are present; present and undefined: back to the default.
 */
export type ConfigOptionChanges = Partial<
  Pick<ProxyConfig, (typeof LIVE_OPTIONS)[number] | 'exposeAlways' | 'serverDescriptions' | 'approval'>
>;

export interface ConfigDiff {
  /** Entries new in `after`, in its order. */
  added: ServerEntry[];
  /** Ids gone from `after`. */
  removed: string[];
  /** Entries of `after` whose id was in `before` with another normalised entry. */
  changed: ServerEntry[];
  /** Ids whose entry is the same in both. */
  unchanged: string[];
  /** Only the options whose value moved, with their new value. */
  options: ConfigOptionChanges;
}

/** The difference from `before` to `after` (see the file comment). */
export function diffConfigs(before: ProxyConfig, after: ProxyConfig): ConfigDiff {
  const old = new Map(before.servers.map((s) => [s.id, s]));
  const next = new Set(after.servers.map((s) => s.id));
  const diff: ConfigDiff = { added: [], removed: [], changed: [], unchanged: [], options: {} };
  for (const entry of after.servers) {
    const prev = old.get(entry.id);
    if (!prev) diff.added.push(entry);
    else if (sameValue(prev, entry)) diff.unchanged.push(entry.id);
    else diff.changed.push(entry);
  }
  for (const s of before.servers) if (!next.has(s.id)) diff.removed.push(s.id);
  const options: Record<string, unknown> = diff.options;
  for (const k of LIVE_OPTIONS) {
    const value = after[k];
    if (!sameValue(before[k], value)) options[k] = typeof value === 'object' ? { ...value } : value;
  }
  if (!sameValue([...before.exposeAlways].sort(), [...after.exposeAlways].sort()))
    diff.options.exposeAlways = [...after.exposeAlways];
  if (!sameValue(before.serverDescriptions, after.serverDescriptions))
    diff.options.serverDescriptions = { ...after.serverDescriptions };
  if (!sameValue(before.approval, after.approval)) diff.options.approval = after.approval;
  return diff;
}

/** Whether applying `d` would change nothing. */
export function isEmptyDiff(d: ConfigDiff): boolean {
  return (
    d.added.length === 0 && d.removed.length === 0 && d.changed.length === 0 && Object.keys(d.options).length === 0
  );
}

/** One line for the log: ids only, never a value (entries hold secrets). */
export function describeDiff(d: ConfigDiff): string {
  const parts: string[] = [];
  if (d.added.length) parts.push(`added ${d.added.map((s) => s.id).join(', ')}`);
  if (d.removed.length) parts.push(`removed ${d.removed.join(', ')}`);
  if (d.changed.length) parts.push(`changed ${d.changed.map((s) => s.id).join(', ')}`);
  const options = Object.keys(d.options);
  if (options.length) parts.push(`options ${options.join(', ')}`);
  return parts.length ? parts.join('; ') : 'nothing changed';
}

/** Deep equality of JSON-like values, object key order ignored. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => sameValue(v, bb[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => sameValue(ra[k], rb[k]));
}
