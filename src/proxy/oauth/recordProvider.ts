/**
 * The SDK's `OAuthClientProvider` (client/auth.js) over one server's OAuthRecord: what the
 * SDK's `auth()` discovers, registers and obtains is kept in the record and written to the
 * store once the issuer is known. `interactive` off (a refresh), a redirect to the
 * authorization page throws instead: the user is asked to sign in, never by surprise.
 */
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthRecord, OAuthStore, StoredTokens } from './oauthStore.js';
import type { OAuthSettings } from './oauthSettings.js';

/** Thrown by redirectToAuthorization when no browser flow is running. */
export class InteractionNeeded extends Error {
  constructor() {
    super('the authorization server wants the user to sign in');
  }
}

export class RecordProvider implements OAuthClientProvider {
  /** The working record; `issuer` is empty until discovery named one. */
  record: OAuthRecord;
  redirectUri: string;
  interactive = false;
  flowState = '';
  onAuthorizationUrl?: (url: URL) => void;
  private verifier = '';

  constructor(
    private readonly store: OAuthStore,
    resource: string,
    private readonly settings: OAuthSettings,
    redirectUri: string,
    loaded?: OAuthRecord,
  ) {
    this.record = loaded ?? store.find(resource) ?? { resource, issuer: '', savedAt: '' };
    this.redirectUri = redirectUri;
  }

  get redirectUrl(): string {
    return this.redirectUri;
  }
  get clientMetadataUrl(): string | undefined {
    return this.settings.clientMetadataUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    const secret = this.settings.clientSecret !== undefined;
    return {
      client_name: 'Qiming MCP runtime',
      // A loopback-redirect app on the user's machine (OpenID DCR; SEP-837).
      ...({ application_type: 'native' } as object),
      redirect_uris: [this.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_post' : 'none',
      ...(this.settings.scopes?.length ? { scope: this.settings.scopes.join(' ') } : {}),
    };
  }
  state(): string {
    return this.flowState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.settings.clientId !== undefined) {
      const stamped = this.record.client?.client_id === this.settings.clientId ? this.record.client : {};
      return {
        ...stamped,
        client_id: this.settings.clientId,
        ...(this.settings.clientSecret ? { client_secret: this.settings.clientSecret } : {}),
      } as OAuthClientInformationMixed;
    }
    const c = this.record.client as (OAuthClientInformationMixed & { redirect_uris?: string[] }) | undefined;
    // Registered for another callback port (it was busy): register again rather than be refused.
    if (c && Array.isArray(c.redirect_uris) && !c.redirect_uris.includes(this.redirectUri)) return undefined;
    return c;
  }
  saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    this.record.client = info as unknown as Record<string, unknown>;
    this.bindIssuer((info as { issuer?: string }).issuer);
    return this.persist();
  }

  tokens(): OAuthTokens | undefined {
    return this.record.tokens as OAuthTokens | undefined;
  }
  saveTokens(tokens: OAuthTokens): Promise<void> {
    const t: StoredTokens = { ...(tokens as StoredTokens) };
    if (typeof t.expires_in === 'number') t.expires_at = Date.now() + t.expires_in * 1000;
    // A refresh answer may leave the refresh token out: the old one stays valid.
    if (!t.refresh_token && this.record.tokens?.refresh_token) t.refresh_token = this.record.tokens.refresh_token;
    this.record.tokens = t;
    this.bindIssuer((tokens as { issuer?: string }).issuer);
    return this.persist();
  }

  redirectToAuthorization(url: URL): void {
    if (!this.interactive || !this.onAuthorizationUrl) throw new InteractionNeeded();
    this.onAuthorizationUrl(url);
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    // RFC 8414 §3.3: metadata whose issuer is not the authorization server the protected
    // resource metadata named is not used. A server without that metadata (spec 2025-03-26)
    // names no authorization server: its origin is the base URL by definition, the metadata
    // comes from that origin, and its `issuer` (often a path under it) is what the rest of
    // the flow checks the `iss` answer against.
    const issuer = state.authorizationServerMetadata?.issuer;
    const named = state.resourceMetadata !== undefined;
    if (named && issuer && issuer.replace(/\/$/, '') !== String(state.authorizationServerUrl).replace(/\/$/, '')) {
      throw new Error('the authorization server metadata names another issuer');
    }
    this.record.discovery = state as unknown as Record<string, unknown>;
    this.bindIssuer(state.authorizationServerUrl);
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.record.discovery as OAuthDiscoveryState | undefined;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'client') delete this.record.client;
    if (scope === 'all' || scope === 'tokens') delete this.record.tokens;
    if (scope === 'all' || scope === 'discovery') delete this.record.discovery;
    if (scope === 'all' || scope === 'verifier') this.verifier = '';
    return this.persist();
  }

  /** The authorization server's metadata from discovery, if known. */
  get serverMetadata(): { issuer?: string; authorization_response_iss_parameter_supported?: boolean } | undefined {
    return (this.record.discovery as { authorizationServerMetadata?: { issuer?: string } } | undefined)
      ?.authorizationServerMetadata;
  }

  /** Drops everything about this server, on disk too. */
  forget(): void {
    this.store.forget(this.record.resource);
    this.record = { resource: this.record.resource, issuer: '', savedAt: '' };
    this.verifier = '';
  }

  private bindIssuer(issuer: string | undefined): void {
    if (issuer && !this.record.issuer) this.record.issuer = issuer;
  }

  /** Settles once the record is where it is kept (a secret store write is async). */
  private persist(): Promise<void> {
    // Without an issuer the record has no key yet; it stays in memory until discovery.
    if (!this.record.issuer) return Promise.resolve();
    if (this.record.tokens || this.record.client) return this.store.save(this.record);
    this.store.forget(this.record.resource);
    return Promise.resolve();
  }
}
