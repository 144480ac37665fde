/**
 * The folders of the user's login-shell PATH, found at most once per process: handed down in
 * `QIMING_LOGIN_PATH` (by the app, which reads it once at start), else read from the login
 * shell (loginShellEnv.ts), else, when the shell cannot be read, the well-known tool folders
 * that exist (toolFolders.ts). Windows has no login shell to read: nothing is added there.
 * Those two are loaded only when the shell is read: they are built into a file of their own
 * beside the CLI (scripts/buildProxy.mjs), which a start with the folders handed down never reads.
 */
import { homedir, userInfo } from 'node:os';
import { LOGIN_PATH_ENV, LOGIN_SHELL_TIMEOUT_ENV } from '../common/envNames.js';
import type { Logger } from '../common/logger.js';
import { serverGroupStopped, trackServerGroup } from './groupRegistry.js';
import { mergePath, shortenHome, splitPath } from './commandResolver.js';

/** Where the folders came from: handed down, read from the shell, or the fallback list. */
export type LoginPathSource = 'handed' | 'login-shell' | 'fallback';

export interface LoginPath {
  folders: string[];
  source: LoginPathSource;
  /** One line for the log: which shell, how long, or why the fallback. */
  note: string;
}

export interface DiscoverOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
  logger?: Logger;
  /** Passed to the shell read (loginShellEnv.ts `track`). */
  track?: (pgid: number) => () => void;
}

/** The user's shell: `$SHELL`, else the account's (passwd), else the platform's default. */
export function userShell(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  if (env.SHELL !== undefined) return env.SHELL;
  try {
    const s = userInfo().shell;
    if (s) return s;
  } catch {
    // No passwd entry (a container's anonymous uid).
  }
  return platform === 'darwin' ? '/bin/zsh' : '/bin/sh';
}

function timeoutFrom(env: NodeJS.ProcessEnv, fallback: number): number {
  const n = Number(env[LOGIN_SHELL_TIMEOUT_ENV]);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** Finds the folders without any cache (see {@link loginPath} for the cached one). */
export async function discoverLoginPath(o: DiscoverOptions = {}): Promise<LoginPath> {
  const env = o.env ?? process.env;
  const platform = o.platform ?? process.platform;
  const home = o.home ?? (env.HOME || homedir());
  const handed = env[LOGIN_PATH_ENV];
  if (handed !== undefined)
    return { folders: splitPath(handed, platform), source: 'handed', note: `${LOGIN_PATH_ENV} handed down` };
  if (platform === 'win32') return { folders: [], source: 'handed', note: 'Windows: no login shell to read' };
  const shell = userShell(env, platform);
  const [{ readLoginShellPath, LOGIN_SHELL_TIMEOUT_MS }, { wellKnownToolFolders }] = await Promise.all([
    import('./loginShellEnv.js'),
    import('./toolFolders.js'),
  ]);
  const read = await readLoginShellPath({
    shell,
    env,
    timeoutMs: timeoutFrom(env, LOGIN_SHELL_TIMEOUT_MS),
    track: o.track,
  });
  if (read.ok && read.path) {
    const folders = splitPath(read.path, platform).filter((d) => d.startsWith('/'));
    return { folders, source: 'login-shell', note: `login shell ${shell} read in ${read.ms} ms` };
  }
  const why = read.ok ? 'it printed an empty PATH' : read.reason;
  const folders = wellKnownToolFolders({ home, env, platform });
  const list = folders.map((f) => shortenHome(f, home)).join(':') || 'none found';
  return {
    folders,
    source: 'fallback',
    note: `cannot read the login shell's PATH (${shell || 'no shell'}: ${why}); using well-known tool folders: ${list}`,
  };
}

let cached: Promise<LoginPath> | undefined;

/**
 * The folders, found once per process (the first caller's logger writes the one line about
 * it). Concurrent callers share the same read.
 */
export function loginPath(logger?: Logger): Promise<LoginPath> {
  // The shell's group is recorded like a server's: a proxy killed mid-read leaves no shell.
  const track = (pgid: number) => {
    trackServerGroup(pgid, logger);
    return () => serverGroupStopped(pgid);
  };
  cached ??= discoverLoginPath({ track }).then((lp) => {
    if (lp.source === 'fallback') logger?.warn(lp.note);
    else if (lp.source === 'handed') logger?.debug(lp.note);
    else logger?.info(lp.note);
    return lp;
  });
  return cached;
}

/**
 * Hands the folders down to every process started with `env` afterwards: `QIMING_LOGIN_PATH`
 * (so a proxy never reads the shell again) and PATH itself extended (so the processes that are
 * not proxies, an agent for one, find the user's tools too).
 */
export function handLoginPath(
  env: NodeJS.ProcessEnv,
  lp: LoginPath,
  platform: NodeJS.Platform = process.platform,
): void {
  env[LOGIN_PATH_ENV] = lp.folders.join(platform === 'win32' ? ';' : ':');
  const key = platform === 'win32' ? (Object.keys(env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH') : 'PATH';
  env[key] = mergePath(env[key], lp.folders, platform);
}
