/**
 * One remote server's sign-in (MCP authorization, spec 2025-11-25; servers of 2025-03-26
 * too), shared by every session of this process: the header for each request, a refresh
 * before expiry and on a 401, the browser flow (one at a time) and sign-out. The protocol
 * steps (RFC 9728 resource metadata, RFC 8414 / OpenID discovery, client ID metadata
 * documents, dynamic registration, PKCE S256, the RFC 8707 `resource`) are the SDK's
 * `auth()`; ours are the loopback callback with its `state` and RFC 9207 `iss` checks, the
 * store, the opener (http(s) pages only), and when to ask the user.
 */
import type { Logger } from '../common/logger.js';
import { errorText } from '../common/logger.js';
import { browserUrl, urlKind } from '../common/browserUrl.js';
import { SignInRequiredError } from '../upstream/upstreamErrors.js';
import { parseBearerChallenge, unionScopes } from './challenge.js';
import { CallbackServer, derivedCallbackPort } from './callbackServer.js';
import { canonicalResource, crypto, type OAuthRecord, type OAuthStore, type TokenHolder } from './oauthStore.js';
import { RecordProvider } from './recordProvider.js';
import { publishesOAuth } from './publishesOAuth.js';
import type { OAuthSettings, RequestAuth } from './oauthSettings.js';
import type { BrowserOpener } from './browserOpener.js';

export type SignInState = 'signed-out' | 'signed-in' | 'needs-auth' | 'signing-in';

export interface ServerAuthOptions {
  url: string;
  settings: OAuthSettings;
  store: OAuthStore;
  /** The record as the store loaded it (its secrets from the secret store); default: its file. */
  record?: OAuthRecord;
  opener: BrowserOpener;
  logger: Logger;
  /** On a 401 that needs the user, start the browser flow at once (the CLI modes). */
  autoSignIn?: boolean;
  /** Hold the refused request until the sign-in ends (convert: one client, nothing else to serve). */
  waitForSignIn?: boolean;
  /** How long a flow waits for the browser (default 5 min). */
  signInTimeoutMs?: number;
  /** A flow ended with tokens (the upstream restarts to use them). */
  onSignedIn?: () => void;
  onStateChange?: (s: SignInState) => void;
}

/** Refresh this long before the access token expires. */
const REFRESH_MARGIN_MS = 60_000;

type SdkAuth = typeof import('@modelcontextprotocol/sdk/client/auth.js');
let sdk: Promise<SdkAuth> | undefined;
/** The SDK's auth module (built beside the CLI, loaded on the first OAuth step). */
const loadSdk = () => (sdk ??= import('@modelcontextprotocol/sdk/client/auth.js'));

export class ServerAuth implements RequestAuth {
  state: SignInState;
  /** The URL of the flow in progress, for a second caller of signIn(). */
  private flowUrl?: Promise<string>;
  private flow?: Promise<void>;
  private refreshing?: Promise<boolean>;
  private resourceMetadataUrl?: URL;
  private readonly provider: RecordProvider;
  private readonly resource: string;
  readonly host: string;

  constructor(private readonly o: ServerAuthOptions) {
    this.resource = canonicalResource(o.url);
    this.host = new URL(o.url).host;
    this.provider = new RecordProvider(
      o.store,
      this.resource,
      o.settings,
      `http://127.0.0.1:${this.ports()[0]}/callback`,
      o.record,
    );
    this.state = this.provider.record.tokens ? 'signed-in' : 'signed-out';
  }

  get signedIn(): boolean {
    return this.state === 'signed-in';
  }

  /** Which store holds this server's tokens, once it has some. */
  get tokenHolder(): TokenHolder | undefined {
    return this.provider.record.tokens ? (this.o.store.keeper?.holder(this.resource) ?? 'file') : undefined;
  }

  authorization(): string | undefined | Promise<string | undefined> {
    const header = () =>
      this.provider.record.tokens ? `Bearer ${this.provider.record.tokens.access_token}` : undefined;
    const t = this.provider.record.tokens;
    if (t?.expires_at !== undefined && t.refresh_token && t.expires_at - REFRESH_MARGIN_MS < Date.now())
      return this.refresh().then(header);
    return header();
  }

  async refused(status: number, challenge: string | undefined, sent: string | undefined): Promise<boolean> {
    const c = parseBearerChallenge(challenge);
    // No Bearer challenge: this server does not do OAuth; a plain 401/403 as before.
    if (!c) return false;
    if (c.resourceMetadata) this.resourceMetadataUrl = safeUrl(c.resourceMetadata);
    if (status === 403) {
      if (c.error !== 'insufficient_scope') return false;
      const scope = unionScopes(this.provider.record.tokens?.scope, c.scope);
      this.o.logger.warn(`${this.host} needs more permission (scope "${c.scope ?? ''}"): sign in again`);
      return this.needUser(scope, 'more permission needed', true);
    }
    const current = this.provider.record.tokens ? `Bearer ${this.provider.record.tokens.access_token}` : undefined;
    // Someone refreshed meanwhile: send again with the new token.
    if (current && sent !== current) return true;
    if (this.provider.record.tokens?.refresh_token && (await this.refresh())) return true;
    // A static-token server answers 401 too: only one that publishes OAuth metadata asks the user.
    if (!this.provider.record.discovery && !(await publishesOAuth(this.o.url, this.resourceMetadataUrl))) {
      this.o.logger.debug(`${this.host} publishes no OAuth metadata: not a sign-in`);
      return false;
    }
    return this.needUser(c.scope, undefined, false);
  }

  /**
   * Starts the browser flow (or joins the one running) and resolves with its URL once known;
   * `done` settles when it ends. `open` false: the caller opens the URL itself (the app).
   */
  async signIn(open = true, scope?: string, stepUp = false): Promise<{ url?: string; done: Promise<void> }> {
    if (!this.flow) {
      let known!: (u: string) => void;
      this.flowUrl = new Promise<string>((r) => (known = r));
      this.flow = this.runFlow(scope, open, known, stepUp).finally(() => {
        this.flow = undefined;
        this.flowUrl = undefined;
      });
    }
    const done = this.flow;
    const ended = done.then(
      () => undefined,
      () => undefined,
    );
    return { url: await Promise.race([this.flowUrl!, ended]), done };
  }

  /** Forgets the tokens and the registration, here and on disk. */
  signOut(): void {
    this.provider.forget();
    this.setState('needs-auth');
  }

  private async needUser(scope: string | undefined, detail: string | undefined, stepUp: boolean): Promise<boolean> {
    this.setState('needs-auth');
    const wait = this.o.waitForSignIn || (stepUp && this.o.autoSignIn);
    if (wait) {
      const { done } = await this.signIn(true, scope ?? this.configuredScope(), stepUp);
      await done.catch((err) => {
        throw new SignInRequiredError(stepUp ? 403 : 401, this.host, errorText(err));
      });
      return true;
    }
    // The CLI: the browser opens, and this start fails now (the ready line does not wait).
    if (this.o.autoSignIn)
      void this.signIn(true, scope ?? this.configuredScope(), stepUp).then((r) => r.done.catch(() => undefined));
    throw new SignInRequiredError(stepUp ? 403 : 401, this.host, detail);
  }

  private configuredScope(): string | undefined {
    return this.o.settings.scopes?.length ? this.o.settings.scopes.join(' ') : undefined;
  }

  /**
   * One refresh at a time, with the discovered endpoints: false when it failed. Only a
   * refused refresh token (invalid_grant and the like) is dropped; a network error keeps it.
   */
  private refresh(): Promise<boolean> {
    this.refreshing ??= (async () => {
      const p = this.provider;
      const tokens = p.record.tokens;
      const d = p.record.discovery as
        | {
            authorizationServerUrl?: string;
            authorizationServerMetadata?: never;
            resourceMetadata?: { resource?: string };
          }
        | undefined;
      const client = p.clientInformation();
      if (!tokens?.refresh_token || !d?.authorizationServerUrl || !client) return false;
      const { refreshAuthorization } = await loadSdk();
      try {
        const fresh = await refreshAuthorization(d.authorizationServerUrl, {
          metadata: d.authorizationServerMetadata,
          clientInformation: client,
          refreshToken: tokens.refresh_token,
          resource: new URL(d.resourceMetadata?.resource ?? this.resource),
        });
        await p.saveTokens({ ...fresh, issuer: p.record.issuer } as never);
        this.o.logger.info(`access token for ${this.host} refreshed`);
        this.setState('signed-in');
        return true;
      } catch (err) {
        const refused =
          (err as { errorCode?: unknown }).errorCode !== undefined &&
          (err as { errorCode?: string }).errorCode !== 'server_error';
        this.o.logger.warn(`token refresh for ${this.host} failed: ${errorText(err)}`);
        if (refused) await p.invalidateCredentials('tokens');
        return false;
      }
    })().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async runFlow(
    scope: string | undefined,
    open: boolean,
    urlKnown: (u: string) => void,
    stepUp: boolean,
  ): Promise<void> {
    const p = this.provider;
    // A step-up needs a new authorization: a refresh would keep the old scope.
    const kept = stepUp ? p.record.tokens : undefined;
    if (stepUp) delete p.record.tokens;
    this.setState('signing-in');
    const state = crypto().randomBytes(24).toString('base64url');
    let cb: CallbackServer | undefined;
    try {
      cb = await CallbackServer.listen(this.ports(), state);
      p.redirectUri = cb.redirectUri;
      p.flowState = state;
      p.interactive = true;
      p.onAuthorizationUrl = (u) => {
        // The authorization server names this page: anything but http(s) would run some
        // other handler of the OS (a file, ms-msdt:, smb:); the flow ends here, never opened.
        const page = browserUrl(u);
        if (!page)
          throw new Error(
            `the authorization server names ${urlKind(u)} as its sign-in page: not opened (only http(s) pages are)`,
          );
        urlKnown(page);
        this.o.logger.info(`signing in to ${this.host}: waiting for the browser`);
        if (open) void this.o.opener(page);
      };
      const { auth } = await loadSdk();
      const serverUrl = this.o.url;
      const first = await auth(p, { serverUrl, scope, resourceMetadataUrl: this.resourceMetadataUrl });
      if (first === 'REDIRECT') {
        const answer = await cb.wait(this.o.signInTimeoutMs ?? 300_000);
        if (answer.error) throw new Error(`sign-in refused: ${answer.error}`);
        this.checkIssuer(answer.iss);
        p.interactive = false;
        await auth(p, {
          serverUrl,
          authorizationCode: answer.code,
          scope,
          resourceMetadataUrl: this.resourceMetadataUrl,
        });
      }
      if (!p.record.tokens) throw new Error('no tokens from the authorization server');
      this.o.logger.info(`signed in to ${this.host}`);
      this.setState('signed-in');
      this.o.onSignedIn?.();
    } catch (err) {
      this.o.logger.warn(`sign-in to ${this.host} failed: ${errorText(err)}`);
      if (kept && !p.record.tokens) p.record.tokens = kept;
      this.setState('needs-auth');
      throw err;
    } finally {
      p.interactive = false;
      p.onAuthorizationUrl = undefined;
      cb?.close();
    }
  }

  /** RFC 9207: where the server declares `iss` in answers, it must be there and be its issuer. */
  private checkIssuer(iss: string | undefined): void {
    const meta = this.provider.serverMetadata;
    if (meta?.authorization_response_iss_parameter_supported === true && iss === undefined)
      throw new Error('the authorization answer has no iss');
    if (iss !== undefined && meta?.issuer !== undefined && iss !== meta.issuer)
      throw new Error('the authorization answer came from another issuer (iss mismatch)');
  }

  /** `callbackPort`, else the derived port and the four after it. */
  private ports(): number[] {
    if (this.o.settings.callbackPort !== undefined) return [this.o.settings.callbackPort];
    const base = derivedCallbackPort(this.resource);
    return [base, base + 1, base + 2, base + 3, base + 4];
  }

  private setState(s: SignInState): void {
    if (this.state === s) return;
    this.state = s;
    this.o.onStateChange?.(s);
  }
}

function safeUrl(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
}
