/**
 * A stored secret follows the entry it is named after. An entry's secret field may refer to a
 * name that is not the one its entry gives (secretStore.ts `secretNameFor`):
 * - an old name, which earlier versions gave: `<id>.<VAR>`, `<id>.header.<Name>`,
 *   `<id>.authToken`. These are ambiguous: ids may hold dots, so a stdio entry `gh.header` with
 *   env `Authorization` and a remote `gh` with an `Authorization` header were given one name,
 *   and the second value stored replaced the first;
 * - the name of the same field of an entry the config no longer has: the entry was renamed
 *   (the panel's Edit, an editor), and a new entry under the old id would store its own value
 *   over the one the renamed entry still reads.
 * Each such reference (the whole value of the field) gets its value copied to the entry's own
 * name, then is rewritten to it (one in-place write of the file, as a panel change). A value
 * already under the new name is kept and must match: a different one leaves that field as it
 * is, and says so. The old item stays in the store: every other `${secret:OLD}` (another
 * entry, another config file, a larger value) keeps finding it. An old name several fields
 * referred to as their own is copied to each and reported, since the value it holds is only
 * the last one stored.
 *
 * Done where the panel is served, with a usable store: at each read of the config (the bridge's
 * `GET /config`, the app's `mcp:config:get`) and after each change, until nothing is left.
 */
import type { ConfigStore, SecretRefPlace } from '../config/configStore.js';
import { isPlainObject } from '../config/configEntry.js';
import {
  secretNameFor,
  secretNameOwner,
  secretRefName,
  validSecretOwner,
  type SecretField,
  type SecretStore,
} from './secretStore.js';

/** The name earlier versions gave the secret of `field` (and env or header `key`) of entry `serverId`. */
export function legacySecretName(serverId: string, field: SecretField, key = ''): string {
  const part = field === 'env' ? key : field === 'headers' ? `header.${key}` : 'authToken';
  return `${serverId}.${part}`.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128);
}

/** The id an old name of `field`/`key` was given after, when `name` is one. */
function legacyOwner(name: string, field: SecretField, key: string): string | undefined {
  const tail = legacySecretName('x', field, key).slice(1);
  if (!name.endsWith(tail)) return undefined;
  const id = name.slice(0, -tail.length);
  return validSecretOwner(id) && legacySecretName(id, field, key) === name ? id : undefined;
}

/** Whose `name` is as a name of `field`/`key`: the id it was given after, old scheme or new; undefined for any other name. */
function givenFor(name: string, field: SecretField, key: string): string | undefined {
  const owner = secretNameOwner(name);
  if (owner && owner.field === field && secretNameFor(owner.serverId, field, key) === name) return owner.serverId;
  return legacyOwner(name, field, key);
}

/** Each secret field of `servers` whose value refers to a name its entry does not give (see the file comment), with its own. */
export function movableRefs(servers: Record<string, unknown>): SecretRefPlace[] {
  const out: SecretRefPlace[] = [];
  const consider = (id: string, field: SecretField, key: string, value: unknown) => {
    const from = typeof value === 'string' ? secretRefName(value) : undefined;
    if (from === undefined) return;
    const to = secretNameFor(id, field, key);
    const owner = from === to ? undefined : givenFor(from, field, key);
    if (owner !== undefined && (owner === id || !Object.hasOwn(servers, owner))) out.push({ id, field, key, from, to });
  };
  for (const [id, entry] of Object.entries(servers)) {
    if (!isPlainObject(entry) || !validSecretOwner(id)) continue;
    for (const field of ['env', 'headers'] as const) {
      const values = entry[field];
      if (isPlainObject(values)) for (const [key, value] of Object.entries(values)) consider(id, field, key, value);
    }
    consider(id, 'authToken', '', entry.authToken);
  }
  return out;
}

export interface SecretNamesMoved {
  /** The references rewritten, old name to new. */
  renamed: { from: string; to: string }[];
  /** Sentences for the user (names and entry ids, never values): what could not move, what was shared. */
  notes: string[];
}

const quoted = (ids: string[]) => ids.map((id) => `"${id}"`).join(' and ');

/**
 * Moves the references of the config `config` edits to their entries' own names (see the file
 * comment). Never throws: a file or a store that fails leaves the references as they are, and
 * a note says why.
 */
export async function moveSecretNames(config: ConfigStore, store: SecretStore): Promise<SecretNamesMoved> {
  try {
    return await move(config, store);
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 200);
    return { renamed: [], notes: [`stored secrets not renamed: ${why}`] };
  }
}

async function move(config: ConfigStore, store: SecretStore): Promise<SecretNamesMoved> {
  const moved: SecretNamesMoved = { renamed: [], notes: [] };
  const refs = movableRefs(config.servers());
  if (refs.length === 0 || !(await store.available()).ok) return moved;
  const byOld = new Map<string, SecretRefPlace[]>();
  for (const r of refs) byOld.set(r.from, [...(byOld.get(r.from) ?? []), r]);
  const ready: SecretRefPlace[] = [];
  for (const [from, places] of byOld) {
    const value = await store.get(from);
    // Nothing stored: the reference fails as it did, naming the old name; nothing to copy.
    if (value === undefined) continue;
    for (const p of places) {
      const there = await store.get(p.to);
      if (there === undefined) await store.set(p.to, value);
      else if (there !== value) {
        moved.notes.push(
          `${p.id}: \${secret:${from}} was not renamed to \${secret:${p.to}}, which already holds another value`,
        );
        continue;
      }
      ready.push(p);
    }
    const owners = [...new Set(places.map((p) => p.id))];
    if (places.length > 1)
      moved.notes.push(
        `${quoted(owners)} each used the stored secret ${from} as their own; each now has its own copy of the value it held, the last one stored (earlier versions could give two entries one name): enter the right value again where it is not`,
      );
  }
  if (ready.length === 0) return moved;
  const { result, renamed } = config.renameSecretRefs(ready);
  if (!result.ok) moved.notes.push(`stored secrets not renamed in the config: ${result.error ?? 'not written'}`);
  moved.renamed = renamed.map((p) => ({ from: p.from, to: p.to }));
  return moved;
}
