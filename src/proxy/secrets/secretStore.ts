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

/** A secret's name: letters, digits, `_`, `.` and `-`, at most 128 characters. */
export const SECRET_NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;

/** The reference that stands for secret `name` in a config value: `${secret:NAME}`. */
export function secretRef(name: string): string {
  return `\${secret:${name}}`;
}

/** The name inside `value` when it is exactly one `${secret:NAME}` reference, else undefined. */
export function secretRefName(value: string): string | undefined {
  const m = /^\$\{secret:([A-Za-z0-9_.-]{1,128})\}$/.exec(value);
  return m ? m[1] : undefined;
}

/**
 * The name a server entry's secret is kept under: `<serverId>.<VAR>` for an env value,
 * `<serverId>.header.<Header-Name>` for a header, `<serverId>.authToken` for `authToken`.
 * Characters outside the name's set become `_`.
 */
export function secretNameFor(serverId: string, field: 'env' | 'headers' | 'authToken', key = ''): string {
  const part = field === 'env' ? key : field === 'headers' ? `header.${key}` : 'authToken';
  return `${serverId}.${part}`.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128);
}
