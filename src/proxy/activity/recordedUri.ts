/**
 * A resource URI as the activity log and the traces keep it. A URI's query or userinfo may
 * hold a credential, so it is redacted as a url (config/redact.ts: userinfo dropped, query
 * values and fragment `***`, secret-looking path segments `***`) and every configured secret
 * in it masked (config/secretMask.ts). A URI with nothing to redact stays as the client wrote
 * it, not re-encoded: `file:///home/me/笔记.md` stays readable, and found by its own words.
 * Loaded with the activity log; the tracer (loaded from it) takes it from there.
 */
import { redactUrl } from '../config/redact.js';
import type { SecretMask } from '../config/secretMask.js';

export function recordedUri(mask: SecretMask, uri: string): string {
  const redacted = redactUrl(uri);
  let shown = redacted;
  try {
    if (redacted === new URL(uri).href) shown = uri;
  } catch {
    // Not a URL: redactUrl's plain-text cut (from `?` on, the userinfo) is what is shown.
  }
  return mask.maskSecrets(shown);
}
