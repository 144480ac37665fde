/**
 * The secret store's contract: what a `${secret:NAME}` reference is resolved from at launch,
 * and what the panel, an import or an install writes a secret value into. A leaf module (no
 * native code, no I/O): the backends are opened by `openSecretStore.ts`, loaded on first use.
 *
 * Backends: `keyring` (the OS keychain through @napi-rs/keyring: Keychain on macOS, the
 * Credential Manager on Windows, the Secret Service on Linux) for the headless CLI, and `app`
 * (a file encrypted with AES-256-GCM under the key the app keeps in Electron's safeStorage and
 * hands to the bridge in its environment). With neither, the store is `none`: `available()`
 * says why, and values stay in the config file (0600) as before.
 *
 * Also the names the runtime gives an entry's secrets (`secretNameFor`), which say whose they
 * are: `<id>/env/<VAR>`, `<id>/header/<Name>`, `<id>/authToken`.
 */

/** Whether secrets can be kept here, and if not, a sentence saying why (safe to show). */
export type SecretAvailability = { ok: true } | { ok: false; reason: string };

/** Which store holds the secrets: the OS keychain, the app's safeStorage-keyed file, or none. */
export type SecretBackend = 'keyring' | 'app' | 'none';

export interface SecretStore {
  readonly backend: SecretBackend;
  /** Whether the store can be used now; probes it once (a D-Bus round trip on Linux). */
  available(): Promise<SecretAvailability>;
  /** The value kept under `name`, or undefined when there is none. Throws when the store is unavailable. */
  get(name: string): Promise<string | undefined>;
  /** Keeps `value` under `name`, replacing any earlier one. Throws when the store is unavailable. */
  set(name: string, value: string): Promise<void>;
  /** Forgets `name`; true when there was a value. Throws when the store is unavailable. */
  delete(name: string): Promise<boolean>;
}

/** The store's name in a sentence. */
export function storeLabel(backend: SecretBackend): string {
  return backend === 'app' ? "the app's secret store" : backend === 'keyring' ? 'the OS keychain' : 'no secret store';
}

/**
 * A secret's name: letters, digits, `_`, `.`, `-` and `/`, at most 128 characters. The names
 * the runtime gives (below) hold `/`; a name without one is a name the user chose, or one an
 * older version gave (`<id>.<VAR>`: secretRenames.ts).
 */
export const SECRET_NAME_RE = /^[A-Za-z0-9_./-]{1,128}$/;

/** The reference that stands for secret `name` in a config value: `${secret:NAME}`. */
export function secretRef(name: string): string {
  return `\${secret:${name}}`;
}

/** The name inside `value` when it is exactly one `${secret:NAME}` reference, else undefined. */
export function secretRefName(value: string): string | undefined {
  const m = /^\$\{secret:([A-Za-z0-9_./-]{1,128})\}$/.exec(value);
  return m ? m[1] : undefined;
}

/** Every NAME of a `${secret:NAME}` in `text`, in order, each once. */
export function secretRefNames(text: string): string[] {
  return [...new Set([...text.matchAll(/\$\{secret:([A-Za-z0-9_./-]{1,128})\}/g)].map((m) => m[1]))];
}

/** Which field of an entry a secret is for: an env value, a header value, `authToken`. */
export type SecretField = 'env' | 'headers' | 'authToken';

const FIELD_WORD: Record<SecretField, string> = { env: 'env', headers: 'header', authToken: 'authToken' };
const WORD_FIELD = new Map<string, SecretField>([
  ['env', 'env'],
  ['header', 'headers'],
  ['authToken', 'authToken'],
]);
/** A key written as it is: one that needs no escape and holds no `/`. */
const PLAIN_KEY_RE = /^[A-Za-z0-9_.-]+$/;
/** What a name may take from a server id: a config id is at most 64 of these (configEntry.ts). */
const ID_PART_RE = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_NAME = 128;
const DIGEST_CHARS = 16;

/** True when `serverId` can name a secret (every valid config id can). */
export function validSecretOwner(serverId: string): boolean {
  return ID_PART_RE.test(serverId);
}

/**
 * The name a server entry's secret is kept under: `<serverId>/env/<VAR>` for an env value,
 * `<serverId>/header/<Header-Name>` for a header, `<serverId>/authToken` for `authToken`.
 * Server ids and the field words hold no `/`, so the first two parts say whose secret it is
 * whatever dots the id holds. A key outside letters, digits, `_`, `.` and `-` (or too long
 * for the 128 characters) is written as those characters of it, `/`, and 16 hex digits of
 * its SHA-256: two keys never share a name. Distinct (id, field, key) give distinct names.
 * @throws Error when `serverId` is not 1 to 64 letters, digits, `_`, `.` and `-` (no valid
 * config id is).
 */
export function secretNameFor(serverId: string, field: SecretField, key = ''): string {
  if (!validSecretOwner(serverId)) throw new Error('a secret is named after a valid server id');
  const head = `${serverId}/${FIELD_WORD[field]}`;
  if (field === 'authToken') return head;
  const plain = `${head}/${key}`;
  if (PLAIN_KEY_RE.test(key) && plain.length <= MAX_NAME) return plain;
  // `node:crypto` taken at the first name that needs it, not imported (as common/writeAtomic.ts does).
  const digest = process
    .getBuiltinModule('node:crypto')
    .createHash('sha256')
    .update(key, 'utf8')
    .digest('hex')
    .slice(0, DIGEST_CHARS);
  const room = MAX_NAME - head.length - DIGEST_CHARS - 2;
  const shown = key.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, room) || '_';
  return `${head}/${shown}/${digest}`;
}

/** The server id and field a name given by {@link secretNameFor} is for; undefined for any other name. */
export function secretNameOwner(name: string): { serverId: string; field: SecretField } | undefined {
  const parts = name.split('/');
  const field = WORD_FIELD.get(parts[1] ?? '');
  if (!field || !ID_PART_RE.test(parts[0]) || !SECRET_NAME_RE.test(name)) return undefined;
  const keyParts = parts.length - 2;
  if (field === 'authToken' ? keyParts !== 0 : keyParts !== 1 && keyParts !== 2) return undefined;
  return { serverId: parts[0], field };
}
