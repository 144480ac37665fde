/**
 * The app's side of a server's sign-in: the bridge answers `POST /servers/<id>/sign-in`
 * with the authorization page, and the app opens it in the system browser (Electron's
 * `shell.openExternal`, passed in by src/main/electron: this folder never imports electron).
 * Without an opener, or when it fails, the URL is logged for the user to open. A page that
 * is not an http(s) URL is refused (externalUrl.ts): never opened, never offered.
 */
import type { SignInResult } from '../../shared/ipcContract.js';
import { errorMessage, type RuntimeLogger } from '../logs/runtimeLogger.js';
import { externalUrl } from './externalUrl.js';

export async function openSignIn(
  id: string,
  answer: Promise<SignInResult>,
  openExternal: ((url: string) => Promise<void>) | undefined,
  log: RuntimeLogger,
): Promise<SignInResult> {
  const r = await answer;
  if (!r.ok || !r.url) return r;
  let url: string;
  try {
    url = externalUrl(r.url);
  } catch (err) {
    const error = `sign-in to "${id}" refused, the authorization page: ${errorMessage(err)}`;
    log.warn(error);
    return { ok: false, error };
  }
  if (!openExternal) {
    log.warn(`to sign in, open this URL: ${url}`);
    return { ...r, url };
  }
  try {
    await openExternal(url);
  } catch (err) {
    log.warn(`could not open the browser (${errorMessage(err)}): to sign in, open this URL: ${url}`);
  }
  return { ...r, url };
}
