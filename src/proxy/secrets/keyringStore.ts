/**
 * The OS keychain through @napi-rs/keyring (Keychain on macOS, the Credential Manager on
 * Windows, the Secret Service over D-Bus on Linux): one item per secret, service
 * `qiming-mcp-runtime`, account the secret's name. The native module is loaded on first use
 * (it is external to the bundle and shipped unpacked beside it). `available()` writes and
 * removes one probe item, the only reliable test: on Linux without a Secret Service a read
 * answers "nothing there" rather than failing.
 */
import type { SecretAvailability, SecretStore } from './secretStore.js';

/** The keychain service every item is filed under. */
export const KEYRING_SERVICE = 'qiming-mcp-runtime';
/** A keychain that does not answer within this is taken as absent (a D-Bus activation that hangs). */
const PROBE_TIMEOUT_MS = 10_000;
const PROBE_ITEM = '.qiming-probe';

type Keyring = typeof import('@napi-rs/keyring');
let loaded: Promise<Keyring> | undefined;
const keyring = (): Promise<Keyring> => (loaded ??= import('@napi-rs/keyring'));

/** The keychain's own words, which name no value; a hint on Linux, where a missing Secret Service is the usual cause. */
function why(err: unknown): string {
  const text = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim().slice(0, 200);
  const hint =
    process.platform === 'linux'
      ? '; on Linux it needs a Secret Service (gnome-keyring, KeePassXC) on the session D-Bus'
      : '';
  return `the OS keychain cannot be used here (${text || 'no reason given'}${hint})`;
}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export class KeyringStore implements SecretStore {
  readonly backend = 'keyring' as const;
  private probe?: Promise<SecretAvailability>;

  constructor(private readonly service: string = KEYRING_SERVICE) {}

  available(): Promise<SecretAvailability> {
    return (this.probe ??= this.check());
  }

  async get(name: string): Promise<string | undefined> {
    const entry = await this.entry(name);
    return (await entry.getPassword()) ?? undefined;
  }

  async set(name: string, value: string): Promise<void> {
    await (await this.entry(name)).setPassword(value);
  }

  async delete(name: string): Promise<boolean> {
    return (await this.entry(name)).deletePassword();
  }

  private async entry(name: string): Promise<InstanceType<Keyring['AsyncEntry']>> {
    const ok = await this.available();
    if (!ok.ok) throw new Error(ok.reason);
    return new (await keyring()).AsyncEntry(this.service, name);
  }

  private async check(): Promise<SecretAvailability> {
    let k: Keyring;
    try {
      k = await keyring();
    } catch (err) {
      return {
        ok: false,
        reason: `the keychain module cannot be loaded here (${(err as Error).message.split('\n')[0]})`,
      };
    }
    try {
      const probe = new k.AsyncEntry(this.service, PROBE_ITEM);
      await within(probe.setPassword('probe'), PROBE_TIMEOUT_MS);
      await within(probe.deletePassword(), PROBE_TIMEOUT_MS);
      return { ok: true };
    } catch (err) {
      return { ok: false, reason: why(err) };
    }
  }
}
