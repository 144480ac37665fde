/**
 * The sign-in of every remote server of this process, one ServerAuth per server (id and
 * URL), shared by all its sessions and reconnections. A mode installs one registry
 * (`installOAuth`) with its policy: the CLI modes start the browser flow on a 401 by
 * themselves, the bridge waits for a `sign-in` request (the panel's button). Without a
 * registry (tests that build a Hub directly) remote servers behave as before OAuth.
 */
import type { RemoteEntry } from '../config/config.js';
import type { Logger } from '../common/logger.js';
import { OAuthStore } from './oauthStore.js';
import { systemOpener, withFallback, type BrowserOpener } from './browserOpener.js';
import { ServerAuth, type SignInState } from './serverAuth.js';

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

  constructor(private readonly o: OAuthRegistryOptions) {
    this.store = o.store ?? new OAuthStore();
  }

  /** The sign-in of a remote entry, or undefined when it has none (`oauth: false`, its own Authorization header, the bridge). */
  forEntry(entry: RemoteEntry): ServerAuth | undefined {
    if (entry.oauth === false || entry.type === 'bridge') return undefined;
    if (Object.keys(entry.headers).some((k) => k.toLowerCase() === 'authorization')) return undefined;
    const known = this.byId.get(entry.id);
    if (known && known.url === entry.url) return known.auth;
    const log = this.o.logger.child(entry.id);
    const auth = new ServerAuth({
      url: entry.url,
      settings: entry.oauth ?? {},
      store: this.store,
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
}

let installed: OAuthRegistry | undefined;

/** Makes `registry` the one every remote transport of this process asks (undefined: none). */
export function installOAuth(registry: OAuthRegistry | undefined): void {
  installed = registry;
}

/** The sign-in for a remote entry under the installed registry, if any. */
export function oauthFor(entry: RemoteEntry): ServerAuth | undefined {
  return installed?.forEntry(entry);
}
