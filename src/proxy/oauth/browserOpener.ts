/**
 * Opens the authorization URL in the user's browser. `QIMING_OAUTH_BROWSER`, when set, is a
 * command (words split on spaces) run with the URL as its last argument: headless machines,
 * tests, a particular browser. Else the OS opener (`open`, `xdg-open`, `start` through
 * cmd). When none works the URL is logged once, at warn, for the user to open by hand. The
 * app passes Electron's `shell.openExternal` instead (src/main/electron).
 */
import { spawn } from 'node:child_process';
import type { Logger } from '../common/logger.js';

export const BROWSER_ENV = 'QIMING_OAUTH_BROWSER';

/** Opens `url`; resolves true when something took it. */
export type BrowserOpener = (url: string) => Promise<boolean>;

/** The command and its arguments for `url`, by env and platform. */
export function openerCommand(url: string, env: NodeJS.ProcessEnv = process.env, platform = process.platform): { cmd: string; args: string[] } {
  const custom = env[BROWSER_ENV]?.trim();
  if (custom) {
    const words = custom.split(/\s+/);
    return { cmd: words[0], args: [...words.slice(1), url] };
  }
  if (platform === 'darwin') return { cmd: 'open', args: [url] };
  // `start` is a cmd built-in; the empty title keeps a quoted URL from being taken as one.
  if (platform === 'win32') return { cmd: 'cmd', args: ['/c', 'start', '""', url.replace(/&/g, '^&')] };
  return { cmd: 'xdg-open', args: [url] };
}

/** Runs the opener detached from our stdio (stdout is the protocol's); true when it exited 0. */
export function systemOpener(logger: Logger, env: NodeJS.ProcessEnv = process.env): BrowserOpener {
  return (url) =>
    new Promise<boolean>((resolve) => {
      const { cmd, args } = openerCommand(url, env);
      let child;
      try {
        child = spawn(cmd, args, { stdio: 'ignore', windowsHide: true, env });
      } catch {
        return resolve(false);
      }
      child.once('error', () => resolve(false));
      child.once('exit', (code) => resolve(code === 0));
      logger.debug(`opening the browser with ${cmd}`);
    });
}

/** Wraps an opener: when it fails, the URL is logged once at warn (per URL). */
export function withFallback(open: BrowserOpener, logger: Logger, host: string): BrowserOpener {
  const told = new Set<string>();
  return async (url) => {
    const ok = await open(url).catch(() => false);
    if (!ok && !told.has(url)) {
      told.add(url);
      logger.warn(`could not open a browser: to sign in to ${host}, open this URL: ${url}`);
    }
    return ok;
  };
}
