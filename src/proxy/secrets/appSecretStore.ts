/**
 * The app's secret store: one file, `secrets.enc` beside the sign-in token folder (or
 * `$QIMING_SECRETS_FILE`), holding a JSON map of name to value encrypted with AES-256-GCM
 * under the key the app keeps in Electron's safeStorage and hands to the bridge in its
 * environment (`QIMING_OAUTH_KEY`, oauth/keyCodec.ts). Written whole to a temporary file and
 * renamed (0600); a file the key cannot open is never overwritten.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeAtomic } from '../common/writeAtomic.js';
import { defaultOAuthDir, type SecretCodec } from '../oauth/oauthStore.js';
import type { SecretAvailability, SecretStore } from './secretStore.js';

/** Where the app's secrets file is when `$QIMING_SECRETS_FILE` does not say. */
export const SECRETS_FILE_ENV = 'QIMING_SECRETS_FILE';

export function defaultSecretsFile(env: NodeJS.ProcessEnv = process.env): string {
  return env[SECRETS_FILE_ENV] || join(dirname(defaultOAuthDir(env)), 'secrets.enc');
}

export class AppSecretStore implements SecretStore {
  readonly backend = 'app' as const;

  constructor(
    readonly file: string,
    private readonly codec: SecretCodec,
  ) {}

  available(): Promise<SecretAvailability> {
    try {
      this.read();
      return Promise.resolve({ ok: true });
    } catch (err) {
      return Promise.resolve({ ok: false, reason: (err as Error).message });
    }
  }

  get(name: string): Promise<string | undefined> {
    return Promise.resolve().then(() => {
      const all = this.read();
      return Object.hasOwn(all, name) ? all[name] : undefined;
    });
  }

  set(name: string, value: string): Promise<void> {
    return Promise.resolve().then(() => this.write({ ...this.read(), [name]: value }));
  }

  delete(name: string): Promise<boolean> {
    return Promise.resolve().then(() => {
      const all = this.read();
      if (!Object.hasOwn(all, name)) return false;
      delete all[name];
      this.write(all);
      return true;
    });
  }

  private read(): Record<string, string> {
    let data: Buffer;
    try {
      data = readFileSync(this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new Error(`the app's secrets file cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.codec.decode(data));
    } catch {
      throw new Error("the app's secrets file cannot be opened with this key (another account's keychain, or damaged)");
    }
    const out: Record<string, string> = Object.create(null) as Record<string, string>;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') out[k] = v;
    return out;
  }

  private write(all: Record<string, string>): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    writeAtomic(this.file, this.codec.encode(JSON.stringify(all)), 0o600);
  }
}
