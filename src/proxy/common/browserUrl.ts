/**
 * What may be handed to a browser: an http(s) URL, nothing else. An authorization server
 * names the sign-in page itself (`authorization_endpoint`), and every OS opener (`open`,
 * `xdg-open`, ShellExecute, Electron's `shell.openExternal`) runs whatever handler the
 * scheme has: `file:` opens a local file, `ms-msdt:`, `search-ms:` or `smb:` reach Windows
 * tools. A leaf module: the proxy's opener, its sign-in flow and the app (through
 * src/proxy/index.ts) share this one check.
 */

const WEB_SCHEMES = new Set(['http:', 'https:']);
/** A quote, whitespace or a control character: the WHATWG serializer leaves `"` in a host. */
const UNSAFE_RE = /["\s\p{Cc}]/u;

/** The serialized URL when `url` is an http(s) URL a browser may be given, else undefined. */
export function browserUrl(url: string | URL): string | undefined {
  let u: URL;
  try {
    u = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return undefined;
  }
  if (!WEB_SCHEMES.has(u.protocol) || !u.hostname) return undefined;
  return UNSAFE_RE.test(u.href) ? undefined : u.href;
}

/** How to name `url` in an error without repeating it: its scheme, or "a malformed URL". */
export function urlKind(url: string | URL): string {
  try {
    const scheme = (typeof url === 'string' ? new URL(url) : url).protocol;
    return WEB_SCHEMES.has(scheme)
      ? 'an http(s) URL without a host or with a quote, space or control character'
      : `a "${scheme}" URL`;
  } catch {
    return 'a malformed URL';
  }
}
