/**
 * Where sign-in results live: one file per (authorization server issuer, resource URL) pair,
 * never keyed by callback port or session, under `$QIMING_OAUTH_DIR` (default
 * `<user config dir>/qiming-mcp/oauth`). Folder 0700, files 0600, each written to a
 * temporary file and renamed over the old one, so a crash never leaves half a record. A
 * `SecretCodec` (the app's Electron safeStorage) may encrypt the contents; the default
 * stores JSON as is, which the file modes protect. With a {@link TokenKeeper} (the secret
 * store, oauth/tokenSecrets.ts) the secrets of a record (`client`, `tokens`) live there and
 * the file keeps the rest and the secret's name.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { appDataDir } from '../common/appDataDir.js';
import { writeAtomic } from '../common/writeAtomic.js';
import { join } from 'node:path';
import { OAUTH_DIR_ENV } from '../common/envNames.js';

/** One signed-in server: what the SDK's auth flow saved for it. Secrets: `client`, `tokens`. */
export interface OAuthRecord {
  /** The canonical resource URL (the server URL without query or fragment). */
  resource: string;
  /** The authorization server the tokens came from (discovery's URL). */
  issuer: string;
  client?: Record<string, unknown>;
  tokens?: StoredTokens;
  discovery?: Record<string, unknown>;
  savedAt: string;
  /** The secret store item holding `client` and `tokens` (the file then holds neither). */
  kept?: string;
}

/** Which store holds a record's secrets: the OS keychain, the app's secret store, or its own 0600 file. */
export type TokenHolder = 'keyring' | 'app' | 'file';

/** Keeps the secrets of records elsewhere than their file (oauth/tokenSecrets.ts: the secret store). */
export interface TokenKeeper {
  save(record: OAuthRecord): Promise<void>;
  forget(records: OAuthRecord[]): void;
  holder(resourceUrl: string): TokenHolder | undefined;
}

export interface StoredTokens {
  access_token: string;
  token_type?: string;
  refresh_token?: string;
  scope?: string;
  expires_in?: number;
  /** Epoch ms at which the access token expires (from expires_in when saved). */
  expires_at?: number;
  [k: string]: unknown;
}

/** Encrypts what goes to disk (the app's safeStorage); `name` is logged, never the data. */
export interface SecretCodec {
  readonly name: string;
  encode(text: string): Buffer;
  decode(data: Buffer): string;
}

export { OAUTH_DIR_ENV };

/** `$QIMING_OAUTH_DIR`, else `qiming-mcp/oauth` in the user's config folder. */
export function defaultOAuthDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env[OAUTH_DIR_ENV]) return env[OAUTH_DIR_ENV]!;
  return join(appDataDir(platform, env), 'qiming-mcp', 'oauth');
}

/** The resource URL a record is filed under: no query, no fragment, no trailing slash. */
export function canonicalResource(url: string): string {
  const u = new URL(url);
  u.hash = '';
  u.search = '';
  u.username = '';
  u.password = '';
  return u.href.replace(/\/$/, '');
}

export class OAuthStore {
  /** Where records' secrets are kept instead of their files, once one is attached. */
  keeper?: TokenKeeper;

  constructor(
    readonly dir: string = defaultOAuthDir(),
    private readonly codec?: SecretCodec,
  ) {}

  /** The newest record for this resource (any issuer) as its file holds it, or undefined. */
  find(resourceUrl: string): OAuthRecord | undefined {
    const resource = canonicalResource(resourceUrl);
    return this.all()
      .filter((r) => r.resource === resource)
      .sort((a, b) => b.savedAt.localeCompare(a.savedAt))[0];
  }

  /** Saves the record: its secrets to the keeper when there is one, else all of it to its file. */
  save(record: OAuthRecord): Promise<void> {
    if (this.keeper) return this.keeper.save(record);
    this.writeRecord(record);
    return Promise.resolve();
  }

  /** Writes the record's file atomically as given (0600, in a 0700 folder). */
  writeRecord(record: OAuthRecord): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const text = JSON.stringify({ ...record, savedAt: new Date().toISOString() });
    const data = this.codec ? this.codec.encode(text) : Buffer.from(text);
    writeAtomic(join(this.dir, recordFileName(record.issuer, record.resource)), data, 0o600);
  }

  /** Forgets every record of this resource, and the secrets kept for them; the number removed. */
  forget(resourceUrl: string): number {
    const resource = canonicalResource(resourceUrl);
    const gone: OAuthRecord[] = [];
    for (const [file, r] of this.entries()) {
      if (r.resource !== resource) continue;
      rmSync(join(this.dir, file), { force: true });
      gone.push(r);
    }
    if (gone.length) this.keeper?.forget(gone);
    return gone.length;
  }

  private all(): OAuthRecord[] {
    return this.entries().map(([, r]) => r);
  }

  private entries(): [string, OAuthRecord][] {
    let files: string[];
    try {
      files = readdirSync(this.dir).filter((f) => f.endsWith('.json'));
    } catch {
      return [];
    }
    const out: [string, OAuthRecord][] = [];
    for (const f of files) {
      try {
        const raw = readFileSync(join(this.dir, f));
        const r = JSON.parse(this.codec ? this.codec.decode(raw) : raw.toString('utf8')) as OAuthRecord;
        if (typeof r.resource === 'string' && typeof r.issuer === 'string') out.push([f, r]);
      } catch {
        // unreadable (another codec, damaged): not ours to use
      }
    }
    return out;
  }
}

/** The file a record is kept in: a hash of its issuer and resource. */
export function recordFileName(issuer: string, resource: string): string {
  return `${crypto().createHash('sha256').update(`${issuer}\n${resource}`).digest('hex').slice(0, 32)}.json`;
}

/** node:crypto, loaded on first use (it is not needed by configs without OAuth). */
export function crypto(): typeof import('node:crypto') {
  return process.getBuiltinModule('node:crypto');
}
