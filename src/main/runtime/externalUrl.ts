/**
 * The app's one check before the system browser: Electron's `shell.openExternal` opens any
 * scheme with the OS handler it has (`file:`, `ms-msdt:`, `smb:`...), and the sign-in page
 * comes from a remote authorization server (through the bridge). Only http(s) URLs pass;
 * the proxy's own opener applies the same rule (`browserUrl`, src/proxy/common).
 */
import { browserUrl, urlKind } from '../../proxy/index.js';

/** `url` serialized when a browser may be given it; else throws, saying what it is (never repeating it). */
export function externalUrl(url: string): string {
  const page = browserUrl(url);
  if (!page) throw new Error(`${urlKind(url)} is not opened: only http(s) URLs go to a browser`);
  return page;
}
