/**
 * Tool and prompt names in aggregation: `<serverId>__<name>`, sanitised to `[A-Za-z0-9_-]`,
 * at most 64 characters (longer names keep a prefix and gain a stable hash suffix). The
 * mapping is kept in a table, so it is reversible even where sanitising lost characters.
 *
 * A name depends only on its server, its own name and the configured server ids, never on
 * which servers are ready: `a` + `b__c` and `a__b` + `c` both spell `a__b__c`, and that
 * plain name belongs to the server with the longest configured prefix it starts with (`a__b`,
 * as {@link serverIdForName} reads it); the other gets a hash of its exact original, whether
 * or not `a__b` is up or lists a `c`. So a name keeps its owner whatever the start order.
 */

export const NAME_SEPARATOR = '__';
export const MAX_NAME_LENGTH = 64;

export type NamingMode = 'prefixed' | 'original';

function sanitize(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, '_');
}

function shortHash(s: string): string {
  // Loaded on first use: most names need no hash, and crypto costs start-up time.
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(s).digest('hex').slice(0, 8);
}

/** The stable namespaced name of `name` on server `serverId`. */
export function namespacedName(serverId: string, name: string): string {
  const raw = `${sanitize(serverId)}${NAME_SEPARATOR}${sanitize(name)}`;
  const lossy = raw !== `${serverId}${NAME_SEPARATOR}${name}`;
  if (raw.length <= MAX_NAME_LENGTH && !lossy) return raw;
  // Sanitising can make two names equal; a hash of the exact original keeps them apart.
  const suffix = `_${shortHash(`${serverId}\0${name}`)}`;
  if (raw.length + suffix.length <= MAX_NAME_LENGTH && lossy) return raw + suffix;
  return raw.slice(0, MAX_NAME_LENGTH - suffix.length) + suffix;
}

const NO_NAMES: ReadonlySet<string> = new Set();

export interface NamedItem {
  serverId: string;
  name: string;
}

/**
 * A two-way table between exposed names and (server, original name). Built from the
 * current lists and the configured server ids (`serverIds`, ready or not; by default those
 * of `items`); rebuilt whenever a list changes.
 */
export class NameTable {
  private readonly byExposed = new Map<string, NamedItem>();
  private readonly byOriginal = new Map<string, string>();

  /** `reserved`: names the aggregate answers itself (the meta-tools): a tool so named keeps its prefix in `original` mode. */
  constructor(
    items: NamedItem[],
    mode: NamingMode,
    serverIds: Iterable<string> = items.map((it) => it.serverId),
    reserved: ReadonlySet<string> = NO_NAMES,
  ) {
    const prefixes = [...new Set([...serverIds].map((id) => `${sanitize(id)}${NAME_SEPARATOR}`))];
    const counts = new Map<string, number>();
    if (mode === 'original') for (const it of items) counts.set(it.name, (counts.get(it.name) ?? 0) + 1);
    for (const it of items) {
      const keepRaw = mode === 'original' && counts.get(it.name) === 1 && !reserved.has(it.name);
      let exposed = keepRaw ? it.name : namespacedName(it.serverId, it.name);
      if (!keepRaw && readsAsOther(exposed, it, prefixes)) exposed = withHash(exposed, key(it));
      // What can still meet: a raw name of `original` mode, or a tool named like another's hashed name. The later one is hashed.
      if (this.byExposed.has(exposed)) exposed = withHash(exposed, key(it));
      this.byExposed.set(exposed, it);
      this.byOriginal.set(key(it), exposed);
    }
  }

  resolve(exposed: string): NamedItem | undefined {
    return this.byExposed.get(exposed);
  }

  exposedName(serverId: string, name: string): string | undefined {
    return this.byOriginal.get(key({ serverId, name }));
  }
}

/** Whether the plain prefixed name of `it` reads as another configured server's: it starts with a longer configured prefix. */
function readsAsOther(exposed: string, it: NamedItem, prefixes: readonly string[]): boolean {
  if (exposed !== `${it.serverId}${NAME_SEPARATOR}${it.name}`) return false; // already hashed: unique to its original
  const own = sanitize(it.serverId).length + NAME_SEPARATOR.length;
  return prefixes.some((p) => p.length > own && exposed.startsWith(p));
}

function withHash(name: string, original: string): string {
  const suffix = `_${shortHash(original)}`;
  return name.slice(0, MAX_NAME_LENGTH - suffix.length) + suffix;
}

function key(it: NamedItem): string {
  return `${it.serverId}\0${it.name}`;
}

/**
 * Which of `serverIds` a prefixed name belongs to by its `<serverId>__` prefix (the longest
 * match), whether or not that server lists the name now: a server that is not ready has no
 * names in the table, but a call to one of its tools should still say whose it is.
 */
export function serverIdForName(exposed: string, serverIds: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const id of serverIds) {
    const prefix = `${sanitize(id)}${NAME_SEPARATOR}`;
    if (exposed.startsWith(prefix) && (best === undefined || sanitize(best).length < sanitize(id).length)) best = id;
  }
  return best;
}
