/**
 * Opens the authorization URL in the user's browser. `QIMING_OAUTH_BROWSER`, when set, is a
 * command (words split on spaces) run with the URL as its last argument: headless machines,
 * tests, a particular browser. Else the OS opener (`open`, `xdg-open`, rundll32's
 * FileProtocolHandler on Windows). When none works the URL is logged once, at warn, for the
 * user to open by hand. The app passes Electron's `shell.openExternal` instead (src/main).
 *
 * Only http(s) URLs are ever opened (common/browserUrl.ts): the page is named by the
 * authorization server, and every OS opener runs whatever handler its scheme has. The
 * opener's environment is ours without the runtime's secrets (common/envNames.ts).
 */
import { spawn } from 'node:child_process';
import { win32 } from 'node:path';
import { browserUrl, urlKind } from '../common/browserUrl.js';
import { isRuntimeSecret, RUN_AS_NODE_ENV } from '../common/envNames.js';
import type { Logger } from '../common/logger.js';

export const BROWSER_ENV = 'QIMING_OAUTH_BROWSER';

/** Opens `url`; resolves true when something took it. */
export type BrowserOpener = (url: string) => Promise<boolean>;

/** Why `url` is not opened: it is not an http(s) URL a browser may be given. */
export class NotABrowserUrlError extends Error {
  constructor(url: string) {
    super(`${urlKind(url)} is not opened: only http(s) URLs go to a browser`);
  }
}

/**
 * The command and its arguments for `url`, by env and platform; throws NotABrowserUrlError
 * for anything but an http(s) URL. The URL is always one argument of its own, and no shell
 * ever parses it.
 */
export function openerCommand(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): { cmd: string; args: string[] } {
  const page = browserUrl(url);
  if (!page) throw new NotABrowserUrlError(url);
  const custom = env[BROWSER_ENV]?.trim();
  if (custom) {
    const words = custom.split(/\s+/);
    return { cmd: words[0], args: [...words.slice(1), page] };
  }
  if (platform === 'darwin') return { cmd: 'open', args: [page] };
  // Not `cmd /c start "" <url>`: cmd parses the whole line, so `|`, `&`, `<`, `>` and `^` in
  // the URL (legal in an http(s) path or query) would run commands and `%VAR%` would expand,
  // and escaping every metacharacter correctly for cmd's two parsing passes is fragile.
  // rundll32 is no shell: it hands the rest of its command line, as is, to url.dll's
  // FileProtocolHandler, which passes it to ShellExecute (the user's default browser for
  // http(s)). Node quotes an argument only if it has a space, tab or quote, and browserUrl
  // refuses those, so the URL arrives byte for byte. Its full path (%SystemRoot%), not a
  // PATH search that may look in the current folder first.
  if (platform === 'win32')
    return {
      cmd: win32.join(systemRoot(env), 'System32', 'rundll32.exe'),
      args: ['url.dll,FileProtocolHandler', page],
    };
  return { cmd: 'xdg-open', args: [page] };
}

/**
 * The opener's environment: `env` without the runtime's secrets (the bridge token, the token
 * store's key, the configured secrets the app hands over), and without ELECTRON_RUN_AS_NODE,
 * which would turn an Electron-built browser or URL handler into plain Node. The rest stays:
 * a browser needs the desktop session's variables (DISPLAY, WAYLAND_DISPLAY, DBUS_..., XDG_...).
 */
export function openerEnv(env: NodeJS.ProcessEnv, platform = process.platform): NodeJS.ProcessEnv {
  const norm = (k: string) => (platform === 'win32' ? k.toUpperCase() : k);
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env))
    if (v !== undefined && !isRuntimeSecret(k, platform) && norm(k) !== RUN_AS_NODE_ENV) out[k] = v;
  return out;
}

/** Runs the opener detached from our stdio (stdout is the protocol's); true when it exited 0. */
export function systemOpener(
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): BrowserOpener {
  return (url) =>
    new Promise<boolean>((resolve) => {
      let child;
      try {
        const { cmd, args } = openerCommand(url, env, platform);
        child = spawn(cmd, args, { stdio: 'ignore', windowsHide: true, shell: false, env: openerEnv(env, platform) });
        logger.debug(`opening the browser with ${cmd}`);
      } catch (err) {
        if (err instanceof NotABrowserUrlError) logger.warn(err.message);
        return resolve(false);
      }
      child.once('error', () => resolve(false));
      child.once('exit', (code) => resolve(code === 0));
    });
}

/**
 * Wraps an opener: when it fails, the URL is logged once at warn (per URL) for the user to
 * open by hand. Anything but an http(s) URL is never opened nor offered.
 */
export function withFallback(open: BrowserOpener, logger: Logger, host: string): BrowserOpener {
  const told = new Set<string>();
  return async (url) => {
    if (!browserUrl(url)) {
      logger.warn(`sign-in to ${host}: ${new NotABrowserUrlError(url).message}`);
      return false;
    }
    const ok = await open(url).catch(() => false);
    if (!ok && !told.has(url)) {
      told.add(url);
      logger.warn(`could not open a browser: to sign in to ${host}, open this URL: ${url}`);
    }
    return ok;
  };
}

function systemRoot(env: NodeJS.ProcessEnv): string {
  const key = Object.keys(env).find((k) => k.toUpperCase() === 'SYSTEMROOT');
  const root = key ? env[key] : undefined;
  return root && win32.isAbsolute(root) ? root : 'C:\\Windows';
}
