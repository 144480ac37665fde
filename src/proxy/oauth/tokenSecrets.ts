/**
 * Sign-in secrets in the secret store (secrets/): a server's registered client and its
 * tokens are one JSON item, `oauth.<record file name>`, and its record file under the token
 * folder keeps the rest (resource, issuer, discovery) and the item's name. A record file
 * that still holds them is moved on its first read: the item written, then the file
 * rewritten without them. Where the store cannot be used, records stay whole in their 0600
 * file as without a store, and a log line says so once; an item the store cannot give back
 * is a sign-in to do again, never a token taken from elsewhere. The store is opened on the
 * first record read or saved: a server never signed in to opens none.
 */
import {
  canonicalResource,
  recordFileName,
  type OAuthRecord,
  type OAuthStore,
  type TokenHolder,
} from './oauthStore.js';
import type { SecretStore } from '../secrets/secretStore.js';
import type { Logger } from '../common/logger.js';

/** The item name of a record's secrets. */
export function tokenSecretName(record: Pick<OAuthRecord, 'issuer' | 'resource'>): string {
  return `oauth.${recordFileName(record.issuer, record.resource).replace(/\.json$/, '')}`;
}

interface KeptPart {
  client?: Record<string, unknown>;
  tokens?: OAuthRecord['tokens'];
}

export class TokenSecrets {
  private chain: Promise<void> = Promise.resolve();
  private told = false;
  /** Per resource: where its secrets were last put or found. */
  private readonly where = new Map<string, TokenHolder>();

  private opened?: Promise<SecretStore>;
  private backend: TokenHolder = 'file';

  constructor(
    private readonly files: OAuthStore,
    private readonly log: Pick<Logger, 'warn'>,
    private readonly open: () => Promise<SecretStore> = async () =>
      (await import('../secrets/openSecretStore.js')).openSecretStore(),
  ) {}

  /** `files` keeps its records' secrets here from now on. */
  static attach(files: OAuthStore, log: Pick<Logger, 'warn'>): TokenSecrets {
    const kept = new TokenSecrets(files, log);
    files.keeper = kept;
    return kept;
  }

  holder(resourceUrl: string): TokenHolder | undefined {
    const resource = canonicalResource(resourceUrl);
    const known = this.where.get(resource);
    if (known) return known;
    const r = this.files.find(resource);
    return r ? (r.kept ? this.backend : 'file') : undefined;
  }

  load(resourceUrl: string): Promise<OAuthRecord | undefined> {
    return this.serial(async () => {
      const record = this.files.find(resourceUrl);
      if (!record) return undefined;
      const store = await this.usable();
      if (record.kept) {
        if (!store) return this.withoutSecrets(record, 'the secret store cannot be used');
        let text: string | undefined;
        try {
          text = await store.get(record.kept);
        } catch (err) {
          return this.withoutSecrets(record, (err as Error).message.split('\n')[0]);
        }
        if (text === undefined) return this.withoutSecrets(record, `${record.kept} is not in the store`);
        this.where.set(record.resource, this.backend);
        return { ...record, ...parsePart(text) };
      }
      if (store && (record.client || record.tokens)) await this.put(store, record);
      else this.where.set(record.resource, 'file');
      return record;
    });
  }

  save(record: OAuthRecord): Promise<void> {
    const copy: OAuthRecord = { ...record };
    return this.serial(async () => {
      const store = await this.usable();
      if (store) await this.put(store, copy);
      else {
        const { kept: _kept, ...whole } = copy;
        void _kept;
        this.files.writeRecord(whole);
        this.where.set(copy.resource, 'file');
      }
    });
  }

  forget(records: OAuthRecord[]): void {
    void this.serial(async () => {
      for (const r of records) {
        this.where.delete(r.resource);
        const store = r.kept ? await this.usable() : undefined;
        if (!store || !r.kept) continue;
        await store
          .delete(r.kept)
          .catch((err: Error) => this.log.warn(`sign-in: ${r.kept} not removed from the store (${err.message})`));
      }
    });
  }

  /** The secrets to the store, then the file without them; the whole record to the file when the store refuses. */
  private async put(store: SecretStore, record: OAuthRecord): Promise<void> {
    const name = tokenSecretName(record);
    const { client, tokens, kept: _kept, ...rest } = record;
    void _kept;
    try {
      await store.set(name, JSON.stringify({ client, tokens } satisfies KeptPart));
    } catch (err) {
      this.log.warn(
        `sign-in: the secret store refused ${name} (${(err as Error).message.split('\n')[0]}); kept in the token file`,
      );
      this.files.writeRecord({ ...rest, ...(client ? { client } : {}), ...(tokens ? { tokens } : {}) });
      this.where.set(record.resource, 'file');
      return;
    }
    this.files.writeRecord({ ...rest, kept: name });
    this.where.set(record.resource, this.backend);
  }

  private withoutSecrets(record: OAuthRecord, why: string): OAuthRecord {
    this.log.warn(`sign-in to ${new URL(record.resource).host} must be done again: its tokens cannot be read (${why})`);
    const { kept: _kept, client: _c, tokens: _t, ...rest } = record;
    void _kept;
    void _c;
    void _t;
    return rest;
  }

  /** The store when it can be used now (said once in the log when it cannot). */
  private async usable(): Promise<SecretStore | undefined> {
    const store = await (this.opened ??= this.open());
    const a = await store.available();
    if (!a.ok && !this.told) {
      this.told = true;
      this.log.warn(`sign-in tokens stay in their 0600 files: ${a.reason}`);
    }
    if (!a.ok || store.backend === 'none') return undefined;
    this.backend = store.backend;
    return store;
  }

  /** One read or write at a time, so a save never overtakes an earlier one. */
  private serial<T>(step: () => Promise<T>): Promise<T> {
    const run = this.chain.then(step);
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }
}

function parsePart(text: string): KeptPart {
  try {
    const v = JSON.parse(text) as KeptPart;
    return {
      ...(v.client && typeof v.client === 'object' ? { client: v.client } : {}),
      ...(v.tokens && typeof v.tokens === 'object' ? { tokens: v.tokens } : {}),
    };
  } catch {
    return {};
  }
}
