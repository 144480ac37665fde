/**
 * The `oauth` object of a remote entry, checked and expanded (config/configEntry.ts), and the
 * interface the streamable HTTP transport asks before each request and on a 401/403.
 */

export interface OAuthSettings {
  clientId?: string;
  clientSecret?: string;
  scopes?: string[];
  callbackPort?: number;
  clientMetadataUrl?: string;
}

/** What LeanHttpClientTransport asks (upstream/authedSend.ts). */
export interface RequestAuth {
  /**
   * The Authorization header to send now, refreshed first when it is about to expire. Sync
   * when no refresh is due, so messages keep their order (authedSend.ts).
   */
  authorization(): string | undefined | Promise<string | undefined>;
  /**
   * The server refused a request (401/403) that carried `sent`: true to send it once more
   * with the header authorization() gives now; false to fail it as a plain HTTP error.
   * Throws a SignInRequiredError when the user must sign in.
   */
  refused(status: number, challenge: string | undefined, sent: string | undefined): Promise<boolean>;
}
