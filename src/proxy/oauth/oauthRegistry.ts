/**
 * The sign-in of every remote server of this process, one ServerAuth per server (id and
 * URL), shared by all its sessions and reconnections. A mode installs one registry
 * (`installOAuth`) with its policy: the CLI modes start the browser flow on a 401 by
 * themselves, the bridge waits for a `sign-in` request (the panel's button). Without a
 * registry (tests that build a Hub directly) remote servers behave as before OAuth.
 *
 * The flow itself (serverAuth.ts and what it imports, the browser opener) is loaded on the
 * first entry that may sign in: it is built into a file of its own beside the CLI
 * (scripts/buildProxy.mjs), which a start without such a server never reads. So is the
 * secret store the tokens are kept in (oauth/tokenSecrets.ts), opened on that first entry.
 */
import type { RemoteEntry } from '../config/config.js';
import type { Logger } from '../common/logger.js';
import { OAuthStore, type TokenHolder } from './oauthStore.js';
import type { TokenSecrets } from './tokenSecrets.js';
import { codecFromEnv } from './keyCodec.js';
import type { BrowserOpener } from './browserOpener.js';
import type { ServerAuth, SignInState } from './serverAuth.js';

export interface OAuthRegistryOptions {
  logger: Logger;
  store?: OAuthStore;
  /** Default: QIMING_OAUTH_BROWSER, else the OS opener, else the URL logged once. */
  opener?: BrowserOpener;
  autoSignIn?: boolean;
  waitForSignIn?: boolean;
  signInTimeoutMs?: number;
  /** A server got tokens from a browser flow. */
  onSignedIn?: (id: string) => void;
  onStateChange?: (id: string, state: SignInState) => void;
}

export class OAuthRegistry {
  readonly store: OAuthStore;
  private readonly byId = new Map<string, { url: string; auth: ServerAuth }>();
  private tokens?: TokenSecrets;

  constructor(private readonly o: OAuthRegistryOptions) {
    const codec = codecFromEnv();
    this.store = o.store ?? new OAuthStore(undefined, codec);
    if (codec) o.logger.debug('sign-in tokens are stored encrypted');
  }

  /** The sign-in of a remote entry, or undefined when it has none (`oauth: false`, its own Authorization header, the bridge). */
  async forEntry(
    entry: Pick<RemoteEntry, 'id' | 'url' | 'type' | 'headers' | 'oauth'>,
  ): Promise<ServerAuth | undefined> {
    if (entry.oauth === false || entry.type === 'bridge') return undefined;
    if (Object.keys(entry.headers).some((k) => k.toLowerCase() === 'authorization')) return undefined;
    const known = () => {
      const k = this.byId.get(entry.id);
      return k && k.url === entry.url ? k.auth : undefined;
    };
    const before = known();
    if (before) return before;
    const [{ ServerAuth }, { systemOpener, withFallback }, { TokenSecrets }] = await Promise.all([
      import('./serverAuth.js'),
      import('./browserOpener.js'),
      import('./tokenSecrets.js'),
    ]);
    if (!this.store.keeper) this.tokens = TokenSecrets.attach(this.store, this.o.logger);
    const record = this.tokens ? await this.tokens.load(entry.url) : undefined;
    // Another caller may have made it while the flow's code and the record were loading.
    const made = known();
    if (made) return made;
    const log = this.o.logger.child(entry.id);
    const auth = new ServerAuth({
      url: entry.url,
      settings: entry.oauth ?? {},
      store: this.store,
      record,
      opener: withFallback(this.o.opener ?? systemOpener(log), log, new URL(entry.url).host),
      logger: log,
      autoSignIn: this.o.autoSignIn,
      waitForSignIn: this.o.waitForSignIn,
      signInTimeoutMs: this.o.signInTimeoutMs,
      onSignedIn: () => this.o.onSignedIn?.(entry.id),
      onStateChange: (s) => this.o.onStateChange?.(entry.id, s),
    });
    this.byId.set(entry.id, { url: entry.url, auth });
    return auth;
  }

  get(id: string): ServerAuth | undefined {
    return this.byId.get(id)?.auth;
  }

  /** Which store holds a signed-in server's tokens (the status says it). */
  tokenStore(id: string): TokenHolder | undefined {
    return this.get(id)?.tokenHolder;
  }

  /** What the panel shows for a server: signed in (Sign out), or waiting (Sign in). */
  panelState(id: string): 'signed-in' | 'needs-auth' | 'signing-in' | undefined {
    const s = this.get(id)?.state;
    return s === 'signed-out' ? undefined : s;
  }
}

let installed: OAuthRegistry | undefined;

/** Makes `registry` the one every remote transport of this process asks (undefined: none). */
export function installOAuth(registry: OAuthRegistry | undefined): void {
  installed = registry;
}

/** The sign-in for a remote entry under the installed registry, if any. */
export async function oauthFor(
  entry: Pick<RemoteEntry, 'id' | 'url' | 'type' | 'headers' | 'oauth'>,
): Promise<ServerAuth | undefined> {
  return installed?.forEntry(entry);
}

/** What installHubOAuth needs of the hub (structural: this folder does not import hub/). */
export interface UpstreamsById {
  upstream(id: string): { readonly state: string; restart(): Promise<void> } | undefined;
}

/**
 * The registry of a mode with a hub: a server that waited for sign-in (`needs-auth`) is
 * restarted once it has tokens; a ready one (after a step-up) keeps its sessions.
 */
export function installHubOAuth(hub: UpstreamsById, opts: OAuthRegistryOptions): OAuthRegistry {
  const registry = new OAuthRegistry({
    ...opts,
    onSignedIn: (id) => {
      const u = hub.upstream(id);
      if (u && u.state === 'needs-auth') void u.restart();
      opts.onSignedIn?.(id);
    },
  });
  installOAuth(registry);
  return registry;
}
