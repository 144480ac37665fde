/**
 * The app's side of a server's sign-in: the bridge answers `POST /servers/<id>/sign-in`
 * with the authorization page, and the app opens it in the system browser (Electron's
 * `shell.openExternal`, passed in by src/main/electron: this folder never imports electron).
 * Without an opener, or when it fails, the URL is logged for the user to open.
 */
import type { SignInResult } from '../../shared/ipcContract.js';
import { errorMessage, type RuntimeLogger } from '../logs/runtimeLogger.js';

export async function openSignIn(
  answer: Promise<SignInResult>,
  openExternal: ((url: string) => Promise<void>) | undefined,
  log: RuntimeLogger,
): Promise<SignInResult> {
  const r = await answer;
  if (!r.ok || !r.url) return r;
  if (!openExternal) {
    log.warn(`to sign in, open this URL: ${r.url}`);
    return r;
  }
  try {
    await openExternal(r.url);
  } catch (err) {
    log.warn(`could not open the browser (${errorMessage(err)}): to sign in, open this URL: ${r.url}`);
  }
  return r;
}
