/**
 * The `oauth` field of a remote entry: `false` (never sign in), or
 * `{clientId?, clientSecret?, scopes?, callbackPort?, clientMetadataUrl?}`, all optional.
 * Strings get `${VAR}` expansion like headers; `clientSecret` is a secret (redact.ts).
 */
import * as z from 'zod/mini';
import type { OAuthSettings } from '../oauth/oauthSettings.js';

const must = (what: string) => (iss: { input?: unknown }) =>
  iss.input === undefined ? 'is required' : `must be ${what}`;
const str = () => z.string({ error: must('a string') });

export const oauthSchema = () =>
  z.union(
    [
      z.literal(false),
      z.strictObject(
        {
          clientId: z.optional(str()),
          clientSecret: z.optional(str()),
          scopes: z.optional(z.array(str(), { error: must('an array of strings') })),
          callbackPort: z.optional(
            z
              .int({ error: must('a port number (1-65535)') })
              .check(
                z.minimum(1, { error: 'must be a port number (1-65535)' }),
                z.maximum(65535, { error: 'must be a port number (1-65535)' }),
              ),
          ),
          clientMetadataUrl: z.optional(str()),
        },
        {
          error: (iss: { code?: string; input?: unknown }) =>
            iss.code === 'unrecognized_keys'
              ? 'may only have the keys "clientId", "clientSecret", "scopes", "callbackPort" and "clientMetadataUrl"'
              : must('false or an object like {"clientId": "...", "scopes": ["..."]}')(iss),
        },
      ),
    ],
    { error: must('false or an object like {"clientId": "...", "scopes": ["..."]}') },
  );

type RawOAuth = z.infer<ReturnType<typeof oauthSchema>>;

/** Expands (`val`) and checks the field; problems go to `add(path, message)`. */
export function parseOAuth(
  raw: RawOAuth,
  val: (path: string, value: string, singleLine?: boolean) => string,
  add: (path: string, msg: string) => void,
): OAuthSettings | false {
  if (raw === false) return false;
  const out: OAuthSettings = {};
  if (raw.clientId !== undefined) out.clientId = val('oauth.clientId', raw.clientId, true);
  if (raw.clientSecret !== undefined) out.clientSecret = val('oauth.clientSecret', raw.clientSecret, true);
  if (raw.scopes !== undefined)
    out.scopes = raw.scopes.map((s, i) => val(`oauth.scopes[${i}]`, s, true)).filter((s) => s !== '');
  if (raw.callbackPort !== undefined) out.callbackPort = raw.callbackPort;
  if (raw.clientMetadataUrl !== undefined) {
    const u = val('oauth.clientMetadataUrl', raw.clientMetadataUrl, true);
    let ok = false;
    try {
      const parsed = new URL(u);
      ok = parsed.protocol === 'https:' && parsed.pathname !== '/';
    } catch {
      ok = false;
    }
    if (!ok) add('oauth.clientMetadataUrl', 'must be an https URL with a path (the client ID metadata document)');
    out.clientMetadataUrl = u;
  }
  if (out.clientSecret !== undefined && out.clientId === undefined) add('oauth.clientSecret', 'needs oauth.clientId');
  return out;
}
